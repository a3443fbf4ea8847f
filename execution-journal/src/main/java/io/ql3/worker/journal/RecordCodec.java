package io.ql3.worker.journal;

import io.ql3.worker.journal.JournalRecord.CompletionAcknowledged;
import io.ql3.worker.journal.JournalRecord.DrainBegun;
import io.ql3.worker.journal.JournalRecord.OfferAccepted;
import io.ql3.worker.journal.JournalRecord.Offline;
import io.ql3.worker.journal.JournalRecord.OperatorResolved;
import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import io.ql3.worker.journal.JournalRecord.RunStarted;
import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import io.ql3.worker.journal.JournalRecord.Superseded;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Binary payloads of records (log kinds 1..11) and snapshot entries (kinds 101..104). Big-endian,
 * strings as int length + UTF-8 (-1 for null). Decoding checks every bound and that the payload is
 * consumed exactly; a payload that does not decode is a {@link CorruptPayloadException}.
 */
final class RecordCodec {
  static final byte SESSION_REGISTERED = 1;
  static final byte PULL_RESERVED = 2;
  static final byte PULL_CLOSED = 3;
  static final byte OFFER_ACCEPTED = 4;
  static final byte RUN_STARTED = 5;
  static final byte RESULT_RECORDED = 6;
  static final byte COMPLETION_ACKNOWLEDGED = 7;
  static final byte SUPERSEDED = 8;
  static final byte DRAIN_BEGUN = 9;
  static final byte OFFLINE = 10;
  static final byte OPERATOR_RESOLVED = 11;

  static final byte SNAP_SESSION = 101;
  static final byte SNAP_PULL = 102;
  static final byte SNAP_RUN = 103;
  static final byte SNAP_END = 104;

  /** Upper bound of any payload; a length above it is corruption. */
  static final int MAX_PAYLOAD = 64 * 1024;

  static final class CorruptPayloadException extends Exception {
    private static final long serialVersionUID = 1L;

    CorruptPayloadException(String message) {
      super(message);
    }
  }

  /** The snapshot's closing entry: how many entries precede it and the sequence it covers. */
  record SnapEnd(long entries, long seq) {}

  private RecordCodec() {}

  /**
   * One journal record type: its kind byte, its class and its payload codec (the layout table
   * above).
   */
  private record Type<R extends JournalRecord>(
      byte kind, Class<R> type, Encoder<R> encoder, Decoder<R> decoder) {
    void encode(JournalRecord r, ByteBuffer b) {
      encoder.encode(type.cast(r), b);
    }
  }

  @FunctionalInterface
  private interface Encoder<R> {
    void encode(R record, ByteBuffer b);
  }

  @FunctionalInterface
  private interface Decoder<R> {
    R decode(ByteBuffer b);
  }

  private static <R extends JournalRecord> Type<R> type(
      byte kind, Class<R> type, Encoder<R> encoder, Decoder<R> decoder) {
    return new Type<>(kind, type, encoder, decoder);
  }

  /**
   * Every record type, once: kind byte ↔ class ↔ payload. Payload layouts (big-endian; str = int
   * length + UTF-8, -1 for null; key = str runId, long attempt; result = byte outcome code, byte
   * has-failure, [byte category code, str code, str message], long durationMs, int exitCode (-1:
   * null), long outputBytes, str outputTail):
   *
   * <pre>
   *  1 SessionRegistered       str sessionId, long generation
   *  2 PullReserved            str pullId, int maxRuns
   *  3 PullClosed              str pullId
   *  4 OfferAccepted           key, str sessionId, long generation, str executor, str specDigest,
   *                            str idempotencyKey, long timeoutMs
   *  5 RunStarted              key, long childPid, long childStartMillis
   *  6 ResultRecorded          key, result
   *  7 CompletionAcknowledged  key, byte disposition code
   *  8 Superseded              key
   *  9 DrainBegun              str sessionId, long generation
   * 10 Offline                 str sessionId, long generation
   * 11 OperatorResolved        key, str note
   * </pre>
   */
  private static final List<Type<?>> TYPES =
      List.of(
          type(
              SESSION_REGISTERED,
              SessionRegistered.class,
              (s, b) -> {
                str(b, s.sessionId());
                b.putLong(s.generation());
              },
              b -> new SessionRegistered(str(b), b.getLong())),
          type(
              PULL_RESERVED,
              PullReserved.class,
              (p, b) -> {
                str(b, p.pullId());
                b.putInt(p.maxRuns());
              },
              b -> new PullReserved(str(b), b.getInt())),
          type(
              PULL_CLOSED,
              PullClosed.class,
              (p, b) -> str(b, p.pullId()),
              b -> new PullClosed(str(b))),
          type(OFFER_ACCEPTED, OfferAccepted.class, (o, b) -> offer(b, o), RecordCodec::offer),
          type(
              RUN_STARTED,
              RunStarted.class,
              (r, b) -> {
                key(b, r.runId(), r.attempt());
                b.putLong(r.childPid());
                b.putLong(r.childStartMillis());
              },
              b -> new RunStarted(str(b), b.getLong(), b.getLong(), b.getLong())),
          type(
              RESULT_RECORDED,
              ResultRecorded.class,
              (r, b) -> {
                key(b, r.runId(), r.attempt());
                result(b, r.result());
              },
              b -> new ResultRecorded(str(b), b.getLong(), result(b))),
          type(
              COMPLETION_ACKNOWLEDGED,
              CompletionAcknowledged.class,
              (a, b) -> {
                key(b, a.runId(), a.attempt());
                b.put(a.disposition().code());
              },
              b ->
                  new CompletionAcknowledged(
                      str(b), b.getLong(), enumOf(Disposition.values(), b.get()))),
          type(
              SUPERSEDED,
              Superseded.class,
              (r, b) -> key(b, r.runId(), r.attempt()),
              b -> new Superseded(str(b), b.getLong())),
          type(
              DRAIN_BEGUN,
              DrainBegun.class,
              (d, b) -> {
                str(b, d.sessionId());
                b.putLong(d.generation());
              },
              b -> new DrainBegun(str(b), b.getLong())),
          type(
              OFFLINE,
              Offline.class,
              (o, b) -> {
                str(b, o.sessionId());
                b.putLong(o.generation());
              },
              b -> new Offline(str(b), b.getLong())),
          type(
              OPERATOR_RESOLVED,
              OperatorResolved.class,
              (o, b) -> {
                key(b, o.runId(), o.attempt());
                str(b, o.note());
              },
              b -> new OperatorResolved(str(b), b.getLong(), str(b))));

  private static Type<?> typeOf(JournalRecord r) {
    for (Type<?> t : TYPES) {
      if (t.type().isInstance(r)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown record " + r);
  }

  static byte kindOf(JournalRecord r) {
    return typeOf(r).kind();
  }

  static void encode(JournalRecord r, ByteBuffer b) {
    typeOf(r).encode(r, b);
  }

  static JournalRecord decode(byte kind, ByteBuffer b) throws CorruptPayloadException {
    Type<?> type = null;
    for (Type<?> t : TYPES) {
      if (t.kind() == kind) {
        type = t;
      }
    }
    if (type == null) {
      throw new CorruptPayloadException("unknown record kind " + kind);
    }
    try {
      JournalRecord r = type.decoder().decode(b);
      end(b);
      return r;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new CorruptPayloadException("record kind " + kind + " does not decode: " + e);
    }
  }

  // ---- snapshot entries ----

  static void encodeSession(SessionFact s, ByteBuffer b) {
    str(b, s.sessionId());
    b.putLong(s.generation());
    b.put((byte) s.status().code());
  }

  static void encodePull(PullReservation p, ByteBuffer b) {
    str(b, p.pullId());
    b.putInt(p.maxRuns());
  }

  static void encodeRun(RunFact f, ByteBuffer b) {
    offer(b, f.offer());
    b.put((byte) f.phase().code());
    b.putLong(f.childPid());
    b.putLong(f.childStartMillis());
    b.put((byte) (f.result() == null ? 0 : 1));
    if (f.result() != null) {
      result(b, f.result());
    }
    b.put((byte) (f.settlement() == null ? -1 : f.settlement().code()));
  }

  static void encodeEnd(SnapEnd e, ByteBuffer b) {
    b.putLong(e.entries());
    b.putLong(e.seq());
  }

  /** Decodes a snapshot entry: SessionFact, PullReservation, RunFact or SnapEnd. */
  static Object decodeSnapshotEntry(byte kind, ByteBuffer b) throws CorruptPayloadException {
    try {
      Object o =
          switch (kind) {
            case SNAP_SESSION ->
                new SessionFact(str(b), b.getLong(), enumOf(SessionStatus.values(), b.get()));
            case SNAP_PULL -> new PullReservation(str(b), b.getInt());
            case SNAP_RUN -> {
              OfferAccepted offer = offer(b);
              RunPhase phase = enumOf(RunPhase.values(), b.get());
              long pid = b.getLong();
              long start = b.getLong();
              RunResult result = b.get() == 1 ? result(b) : null;
              byte s = b.get();
              Settlement settlement = s == -1 ? null : enumOf(Settlement.values(), s);
              yield new RunFact(offer, phase, pid, start, result, settlement);
            }
            case SNAP_END -> new SnapEnd(b.getLong(), b.getLong());
            default -> throw new CorruptPayloadException("unknown snapshot entry kind " + kind);
          };
      end(b);
      return o;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new CorruptPayloadException("snapshot entry kind " + kind + " does not decode: " + e);
    }
  }

  // ---- pieces ----

  private static void offer(ByteBuffer b, OfferAccepted o) {
    key(b, o.runId(), o.attempt());
    str(b, o.sessionId());
    b.putLong(o.generation());
    str(b, o.executor());
    str(b, o.specDigest());
    str(b, o.idempotencyKey());
    b.putLong(o.timeoutMs());
  }

  private static OfferAccepted offer(ByteBuffer b) {
    return new OfferAccepted(
        str(b), b.getLong(), str(b), b.getLong(), str(b), str(b), str(b), b.getLong());
  }

  private static void result(ByteBuffer b, RunResult r) {
    b.put((byte) r.outcome().code());
    Failure f = r.failure();
    b.put((byte) (f == null ? 0 : 1));
    if (f != null) {
      b.put((byte) f.category().code());
      str(b, f.code());
      str(b, f.message());
    }
    b.putLong(r.durationMs());
    b.putInt(r.exitCode() == null ? -1 : r.exitCode());
    b.putLong(r.outputBytes());
    str(b, r.outputTail());
  }

  private static RunResult result(ByteBuffer b) {
    Outcome outcome = enumOf(Outcome.values(), b.get());
    Failure failure = null;
    if (b.get() == 1) {
      failure = new Failure(enumOf(FailureCategory.values(), b.get()), str(b), str(b));
    }
    long duration = b.getLong();
    int exit = b.getInt();
    long outputBytes = b.getLong();
    return new RunResult(outcome, failure, duration, exit == -1 ? null : exit, outputBytes, str(b));
  }

  private static void key(ByteBuffer b, String runId, long attempt) {
    str(b, runId);
    b.putLong(attempt);
  }

  private static void str(ByteBuffer b, String s) {
    if (s == null) {
      b.putInt(-1);
      return;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    b.putInt(bytes.length);
    b.put(bytes);
  }

  private static String str(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("bad string length " + n);
    }
    byte[] bytes = new byte[n];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static <E extends Enum<E> & DiskCode> E enumOf(E[] values, byte code) {
    return DiskCode.of(values, code);
  }

  private static void end(ByteBuffer b) {
    if (b.hasRemaining()) {
      throw new IllegalArgumentException(b.remaining() + " trailing bytes");
    }
  }
}
