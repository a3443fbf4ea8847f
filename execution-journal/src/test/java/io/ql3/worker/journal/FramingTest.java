package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.journal.JournalRecord.DrainBegun;
import io.ql3.worker.journal.JournalRecord.Offline;
import io.ql3.worker.journal.JournalRecord.OperatorResolved;
import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import io.ql3.worker.journal.JournalRecord.Superseded;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Payload codec, frame CRC/salt/commit mark, and segment header. */
class FramingTest {
  private final CRC32C crc = new CRC32C();

  static List<JournalRecord> everyKind() {
    return List.of(
        session(),
        new PullReserved("p-1", 7),
        new PullClosed("p-1"),
        offer("run.1_a-b"),
        started("run.1_a-b"),
        new JournalRecord.RunStarted("x", 3, -1, -1),
        succeeded("run"),
        failed("run"),
        new JournalRecord.ResultRecorded("u", 2, RunResult.uncertainAfterCrash()),
        new JournalRecord.ResultRecorded(
            "big",
            1,
            new RunResult(
                Outcome.CANCELLED,
                new Failure(FailureCategory.PERMANENT, "cancelled", "m".repeat(1024)),
                Long.MAX_VALUE / 2,
                null,
                1L << 40,
                "\u00e9".repeat(8192))),
        acked("run"),
        new JournalRecord.CompletionAcknowledged("r", 9, Disposition.DUPLICATE),
        new Superseded("s", 1),
        new DrainBegun(SESSION, 1),
        new Offline(SESSION, 1),
        new OperatorResolved("o", 1, "note \u6f22"));
  }

  @Test
  void everyRecordKindRoundTrips() throws Exception {
    for (JournalRecord r : everyKind()) {
      ByteBuffer b = ByteBuffer.allocate(RecordCodec.MAX_PAYLOAD);
      RecordCodec.encode(r, b);
      b.flip();
      assertThat(RecordCodec.decode(RecordCodec.kindOf(r), b)).isEqualTo(r);
    }
  }

  /** The on-disk kind byte of every record type (the record-type table in RecordCodec). */
  @Test
  void everyRecordTypeKeepsItsKindByte() {
    java.util.Map<Class<?>, Integer> kinds = new java.util.LinkedHashMap<>();
    for (JournalRecord r : everyKind()) {
      kinds.put(r.getClass(), (int) RecordCodec.kindOf(r));
    }
    assertThat(kinds)
        .containsExactly(
            java.util.Map.entry(JournalRecord.SessionRegistered.class, 1),
            java.util.Map.entry(PullReserved.class, 2),
            java.util.Map.entry(PullClosed.class, 3),
            java.util.Map.entry(JournalRecord.OfferAccepted.class, 4),
            java.util.Map.entry(JournalRecord.RunStarted.class, 5),
            java.util.Map.entry(JournalRecord.ResultRecorded.class, 6),
            java.util.Map.entry(JournalRecord.CompletionAcknowledged.class, 7),
            java.util.Map.entry(Superseded.class, 8),
            java.util.Map.entry(DrainBegun.class, 9),
            java.util.Map.entry(Offline.class, 10),
            java.util.Map.entry(OperatorResolved.class, 11));
  }

  @Test
  void snapshotEntriesRoundTrip() throws Exception {
    List<Object> entries =
        List.of(
            new SessionFact(SESSION, 4, SessionStatus.DRAINING),
            new PullReservation("p", 3),
            new RunFact(offer("a"), RunPhase.STARTED, 12, 34, null, null),
            new RunFact(
                offer("b"), RunPhase.SETTLED, -1, -1, failed("b").result(), Settlement.SUPERSEDED),
            new RecordCodec.SnapEnd(3, 99));
    for (Object e : entries) {
      ByteBuffer b = ByteBuffer.allocate(RecordCodec.MAX_PAYLOAD);
      byte kind;
      if (e instanceof SessionFact s) {
        RecordCodec.encodeSession(s, b);
        kind = RecordCodec.SNAP_SESSION;
      } else if (e instanceof PullReservation p) {
        RecordCodec.encodePull(p, b);
        kind = RecordCodec.SNAP_PULL;
      } else if (e instanceof RunFact f) {
        RecordCodec.encodeRun(f, b);
        kind = RecordCodec.SNAP_RUN;
      } else {
        RecordCodec.encodeEnd((RecordCodec.SnapEnd) e, b);
        kind = RecordCodec.SNAP_END;
      }
      b.flip();
      assertThat(RecordCodec.decodeSnapshotEntry(kind, b)).isEqualTo(e);
    }
  }

  @Test
  void truncatedOrPaddedPayloadDoesNotDecode() {
    ByteBuffer b = ByteBuffer.allocate(1024);
    RecordCodec.encode(offer("a"), b);
    b.flip();
    ByteBuffer shortB = b.duplicate().limit(b.limit() - 1);
    assertThatThrownBy(() -> RecordCodec.decode(RecordCodec.OFFER_ACCEPTED, shortB))
        .isInstanceOf(RecordCodec.CorruptPayloadException.class);
    ByteBuffer padded = ByteBuffer.allocate(b.limit() + 1).put(b.duplicate()).put((byte) 0);
    padded.flip();
    assertThatThrownBy(() -> RecordCodec.decode(RecordCodec.OFFER_ACCEPTED, padded))
        .isInstanceOf(RecordCodec.CorruptPayloadException.class);
    assertThatThrownBy(() -> RecordCodec.decode((byte) 77, b.duplicate()))
        .isInstanceOf(RecordCodec.CorruptPayloadException.class);
  }

  @Test
  void frameCrcCoversLengthAndIsSeededBySalt() {
    ByteBuffer buf = ByteBuffer.allocate(4096);
    ByteBuffer payload = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
    int at = Frame.write(buf, crc, 42L, 7, 7, (byte) 3, payload);
    Frame.markLast(buf, crc, 42L, at);
    Frame f = Frame.read(buf, crc, 42L, at, buf.capacity());
    assertThat(f).isEqualTo(new Frame(0, 5, 7, 7, true, (byte) 3));
    assertThat(Frame.read(buf, crc, 43L, at, buf.capacity())).as("another salt").isNull();
    buf.putInt(0, 4); // a shorter length with the old CRC
    assertThat(Frame.read(buf, crc, 42L, at, buf.capacity())).isNull();
    buf.putInt(0, 5);
    buf.put(24, (byte) 0); // unmark: the commit mark is covered too
    assertThat(Frame.read(buf, crc, 42L, at, buf.capacity())).isNull();
    assertThat(Frame.read(ByteBuffer.allocate(100), crc, 42L, 0, 100)).as("zeros").isNull();
  }

  @Test
  void segmentHeaderRoundTripsAndDetectsDamage() {
    SegmentHeader h = new SegmentHeader(1, SegmentHeader.KIND_LOG, -5L, 1234, "worker-1");
    ByteBuffer b = h.encode();
    assertThat(SegmentHeader.parse(b)).isEqualTo(h);
    for (int i = 0; i < 128; i++) {
      ByteBuffer d = h.encode();
      d.put(i, (byte) (d.get(i) ^ 0x40));
      assertThat(SegmentHeader.parse(d))
          .as("byte %d", i)
          .isNull(); // padding is covered by the CRC too
    }
  }

  @Test
  void recordArgumentsAreChecked() {
    assertThatThrownBy(() -> new PullReserved("", 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PullReserved("p", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new RunResult(
                    Outcome.SUCCEEDED,
                    new Failure(FailureCategory.PERMANENT, "x", ""),
                    0,
                    0,
                    0,
                    ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RunResult(Outcome.FAILED, null, 0, 0, 0, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RunResult(Outcome.SUCCEEDED, null, 0, 256, 0, ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Failure(FailureCategory.PERMANENT, "Bad", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RunResult(Outcome.SUCCEEDED, null, 0, 0, 0, "x".repeat(16385)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
