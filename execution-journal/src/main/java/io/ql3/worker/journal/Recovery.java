package io.ql3.worker.journal;

import io.ql3.worker.journal.RecordCodec.CorruptPayloadException;
import io.ql3.worker.journal.RecordCodec.SnapEnd;
import io.ql3.worker.journal.RecoveryRequired.Reason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads the directory and rebuilds the state, read-only. It decides what may be repaired (only a
 * torn tail: uncommitted or damaged bytes with no complete batch anywhere after them) and reports
 * everything else as {@link RecoveryRequired}. The caller applies the plan when it owns the
 * journal.
 */
final class Recovery {

  /** The outcome: rebuilt state plus the plan to make the directory clean. */
  static final class Plan {
    JournalState state;
    RecoveryRequired problem;
    long snapshotSeq;
    long replayed;
    final List<String> toDelete = new ArrayList<>();

    /** Log segment to continue appending to, or null to create a new one. */
    String activeName;

    SegmentHeader activeHeader;
    int activeEnd;
    int activeDirtyEnd;
    long activeLastSeq = -1;
    int activeCapacity;

    /** For a damaged log: the segment, the bytes of it still committed (-1: none), what follows. */
    String damagedFile;

    int damagedKeep = -1;
    final List<String> afterDamage = new ArrayList<>();

    private void damaged(List<Named> logs, int index, int keep) {
      damagedFile = logs.get(index).name();
      damagedKeep = keep;
      for (int j = index + 1; j < logs.size(); j++) {
        afterDamage.add(logs.get(j).name());
      }
    }
  }

  private record Named(String name, long seq) {}

  /**
   * Oldest first. Written out rather than {@code Comparator.comparingLong}, whose serializable
   * lambda the edge agent's class-data archive cannot hold (docs/perf/code-rules.md).
   */
  private static final Comparator<Named> BY_SEQ = (a, b) -> Long.compare(a.seq(), b.seq());

  private final Storage st;
  private final String workerId;
  private final int windowSize;
  private final CRC32C crc = new CRC32C();

  Recovery(Storage st, String workerId, int windowSize) {
    this.st = st;
    this.workerId = workerId;
    this.windowSize = windowSize;
  }

  Plan run() throws IOException {
    Plan plan = new Plan();
    List<Named> logs = new ArrayList<>();
    List<Named> snaps = new ArrayList<>();
    for (String n : st.list()) {
      if (n.endsWith(SegmentFiles.TMP_SUFFIX)) {
        plan.toDelete.add(n);
      } else if (SegmentFiles.logBase(n) >= 0) {
        logs.add(new Named(n, SegmentFiles.logBase(n)));
      } else if (SegmentFiles.snapshotSeq(n) >= 0) {
        snaps.add(new Named(n, SegmentFiles.snapshotSeq(n)));
      }
    }
    logs.sort(BY_SEQ);
    snaps.sort(BY_SEQ.reversed());

    // 1. The newest snapshot that validates completely.
    List<String> corruptNewer = new ArrayList<>();
    plan.state = new JournalState(workerId, windowSize);
    long s = 0;
    boolean chosen = false;
    for (Named snap : snaps) {
      if (chosen) {
        plan.toDelete.add(snap.name());
        continue;
      }
      ByteBuffer buf = SegmentFiles.readAll(st, snap.name());
      SegmentHeader h = SegmentHeader.parse(buf);
      if (h != null && (h.version() != SegmentHeader.VERSION || !workerId.equals(h.workerId()))) {
        plan.problem = foreignOrVersion(h, snap.name());
        return plan;
      }
      JournalState loaded = h == null ? null : loadSnapshot(buf, h, snap.seq());
      if (loaded == null) {
        corruptNewer.add(snap.name());
        continue;
      }
      plan.state = loaded;
      s = snap.seq();
      chosen = true;
    }
    plan.snapshotSeq = s;
    plan.state.setLastSeq(s);

    // 2. Log segments from the one holding s+1 onwards.
    int first = -1;
    for (int i = 0; i < logs.size(); i++) {
      if (logs.get(i).seq() <= s + 1) {
        first = i;
      }
    }
    for (int i = 0; i < first; i++) {
      plan.toDelete.add(logs.get(i).name());
    }
    if (first < 0) {
      first = 0;
    }
    long lastApplied = s;
    for (int i = first; i < logs.size(); i++) {
      Named seg = logs.get(i);
      SegmentFiles.Content content = SegmentFiles.readContent(st, seg.name());
      ByteBuffer buf = content.bytes();
      SegmentHeader h = SegmentHeader.parse(buf);
      if (h != null && (h.version() != SegmentHeader.VERSION || !workerId.equals(h.workerId()))) {
        plan.problem = foreignOrVersion(h, seg.name());
        return plan;
      }
      if (h == null || h.kind() != SegmentHeader.KIND_LOG || h.base() != seg.seq()) {
        if (laterHasCompleteBatch(logs, i + 1)) {
          plan.problem =
              new RecoveryRequired(
                  Reason.CORRUPT_HEADER,
                  seg.name(),
                  0,
                  "segment header does not validate and committed records follow it");
          plan.damaged(logs, i, -1);
          return plan;
        }
        deleteFrom(plan, logs, i); // a half-created segment: nothing committed in or after it
        break;
      }
      long expected = lastApplied + 1;
      boolean baseOk = i == first ? h.base() <= expected : h.base() == expected;
      if (!baseOk) {
        if (completeBatchIn(buf, h.salt(), SegmentHeader.SIZE, buf.limit())
            || laterHasCompleteBatch(logs, i + 1)) {
          plan.problem =
              corruptNewer.isEmpty()
                  ? new RecoveryRequired(
                      Reason.SEQUENCE_GAP,
                      seg.name(),
                      0,
                      "segment starts at sequence " + h.base() + ", expected " + expected)
                  : new RecoveryRequired(
                      Reason.CORRUPT_SNAPSHOT,
                      corruptNewer.get(0),
                      -1,
                      "newest snapshot is damaged and the log before sequence "
                          + h.base()
                          + " is gone");
          if (corruptNewer.isEmpty()) {
            plan.damaged(logs, i, -1);
          }
          return plan;
        }
        deleteFrom(plan, logs, i);
        break;
      }
      ScanResult r = scan(plan, seg.name(), buf, h, lastApplied);
      if (plan.problem != null) {
        return plan;
      }
      plan.replayed += r.applied;
      if (r.lastSeq >= 0) {
        lastApplied = Math.max(lastApplied, r.lastSeq);
      }
      plan.activeName = seg.name();
      plan.activeHeader = h;
      plan.activeEnd = r.committedEnd;
      plan.activeDirtyEnd = r.committedEnd;
      plan.activeLastSeq = r.lastSeq >= 0 ? r.lastSeq : h.base() - 1;
      plan.activeCapacity = content.size();
      if (r.dirtyEnd > r.committedEnd) {
        // A later segment with a valid header means this one was completely forced before
        // the roll-over: damage in it cannot be a torn write.
        if (completeBatchIn(buf, h.salt(), r.badPos, r.dirtyEnd)
            || laterHasCompleteBatch(logs, i + 1)
            || laterHasValidHeader(logs, i + 1)) {
          plan.problem =
              new RecoveryRequired(
                  r.badSequence ? Reason.SEQUENCE_GAP : Reason.CORRUPT_RECORD,
                  seg.name(),
                  r.badPos,
                  r.badSequence
                      ? "a frame with an unexpected sequence number is followed by committed records"
                      : "a damaged record is followed by committed records");
          plan.damaged(logs, i, r.committedEnd);
          return plan;
        }
        plan.activeDirtyEnd = r.dirtyEnd; // torn tail: to be zeroed
        deleteFrom(plan, logs, i + 1);
        break;
      }
    }
    if (!corruptNewer.isEmpty() && lastApplied < SegmentFiles.snapshotSeq(corruptNewer.get(0))) {
      plan.problem =
          new RecoveryRequired(
              Reason.CORRUPT_SNAPSHOT,
              corruptNewer.get(0),
              -1,
              "newest snapshot is damaged and the log does not reach its sequence (last "
                  + lastApplied
                  + ")");
      return plan;
    }
    plan.toDelete.addAll(corruptNewer);
    plan.state.setLastSeq(lastApplied);
    return plan;
  }

  private static RecoveryRequired foreignOrVersion(SegmentHeader h, String name) {
    if (h.version() != SegmentHeader.VERSION) {
      return new RecoveryRequired(
          Reason.UNKNOWN_FORMAT_VERSION,
          name,
          4,
          "format version " + h.version() + " (this build reads " + SegmentHeader.VERSION + ")");
    }
    return new RecoveryRequired(
        Reason.FOREIGN_WORKER, name, 32, "journal belongs to worker '" + h.workerId() + "'");
  }

  private static void deleteFrom(Plan plan, List<Named> logs, int from) {
    for (int j = from; j < logs.size(); j++) {
      plan.toDelete.add(logs.get(j).name());
    }
  }

  private static final class ScanResult {
    int committedEnd;
    int dirtyEnd;
    int badPos;
    boolean badSequence;
    long lastSeq = -1;
    long applied;
  }

  private record Pending(JournalRecord record, long seq, int pos) {}

  /** Applies every complete batch of the valid prefix; records where the prefix ends. */
  private ScanResult scan(
      Plan plan, String name, ByteBuffer buf, SegmentHeader h, long lastApplied) {
    ScanResult r = new ScanResult();
    int limit = buf.limit();
    int pos = SegmentHeader.SIZE;
    long seqExp = h.base();
    long batchFirst = -1;
    List<Pending> batch = new ArrayList<>();
    r.committedEnd = pos;
    while (true) {
      Frame f = Frame.read(buf, crc, h.salt(), pos, limit);
      if (f == null) {
        break;
      }
      if (f.seq() != seqExp
          || (batchFirst < 0 ? f.batchFirst() != f.seq() : f.batchFirst() != batchFirst)) {
        r.badSequence = true;
        break;
      }
      JournalRecord rec;
      try {
        rec = RecordCodec.decode(f.kind(), f.payload(buf));
      } catch (CorruptPayloadException e) {
        break;
      }
      batchFirst = f.batchFirst();
      batch.add(new Pending(rec, f.seq(), f.position()));
      pos = f.end();
      seqExp++;
      if (f.last()) {
        for (Pending p : batch) {
          if (p.seq() <= lastApplied) {
            continue;
          }
          try {
            plan.state.apply(p.record(), p.seq());
            r.applied++;
          } catch (JournalStateException e) {
            plan.problem =
                new RecoveryRequired(Reason.ILLEGAL_TRANSITION, name, p.pos(), e.getMessage());
            return r;
          }
        }
        batch.clear();
        batchFirst = -1;
        r.committedEnd = pos;
        r.lastSeq = f.seq();
      }
    }
    r.badPos = pos;
    r.dirtyEnd = ZeroTail.start(buf, r.committedEnd, limit);
    return r;
  }

  private boolean laterHasValidHeader(List<Named> logs, int from) throws IOException {
    for (int j = from; j < logs.size(); j++) {
      SegmentHeader h = SegmentHeader.parse(SegmentFiles.readAll(st, logs.get(j).name()));
      if (h != null && h.kind() == SegmentHeader.KIND_LOG && h.base() == logs.get(j).seq()) {
        return true;
      }
    }
    return false;
  }

  private boolean laterHasCompleteBatch(List<Named> logs, int from) throws IOException {
    for (int j = from; j < logs.size(); j++) {
      ByteBuffer buf = SegmentFiles.readAll(st, logs.get(j).name());
      SegmentHeader h = SegmentHeader.parse(buf);
      if (h != null && completeBatchIn(buf, h.salt(), SegmentHeader.SIZE, buf.limit())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a complete batch (first frame .. commit mark, contiguous) starts anywhere in [from,
   * to).
   */
  private boolean completeBatchIn(ByteBuffer buf, long salt, int from, int to) {
    int limit = buf.limit();
    for (int o = Math.max(from, SegmentHeader.SIZE); o + Frame.HEADER <= to; o++) {
      int len = buf.getInt(o);
      if (len < 1 || len > RecordCodec.MAX_PAYLOAD || o + Frame.HEADER + len > limit) {
        continue;
      }
      Frame f = Frame.read(buf, crc, salt, o, limit);
      if (f == null || f.seq() != f.batchFirst()) {
        continue;
      }
      Frame cur = f;
      while (cur != null && !cur.last()) {
        Frame next = Frame.read(buf, crc, salt, cur.end(), limit);
        cur =
            next != null && next.seq() == cur.seq() + 1 && next.batchFirst() == f.batchFirst()
                ? next
                : null;
      }
      if (cur != null) {
        return true;
      }
    }
    return false;
  }

  /** Loads a snapshot that validates completely, or returns null. */
  private JournalState loadSnapshot(ByteBuffer buf, SegmentHeader h, long nameSeq) {
    if (h.kind() != SegmentHeader.KIND_SNAPSHOT || h.base() != nameSeq) {
      return null;
    }
    JournalState state = new JournalState(workerId, windowSize);
    int pos = SegmentHeader.SIZE;
    long seq = 1;
    long entries = 0;
    while (true) {
      Frame f = Frame.read(buf, crc, h.salt(), pos, buf.limit());
      if (f == null || f.seq() != seq || f.batchFirst() != 1) {
        return null;
      }
      Object e;
      try {
        e = RecordCodec.decodeSnapshotEntry(f.kind(), f.payload(buf));
      } catch (CorruptPayloadException ex) {
        return null;
      }
      if (e instanceof SnapEnd end) {
        if (!f.last() || end.entries() != entries || end.seq() != h.base()) {
          return null;
        }
        state.setLastSeq(h.base());
        return state;
      }
      if (f.last()) {
        return null;
      }
      if (e instanceof SessionFact sf) {
        state.restoreSession(sf);
      } else if (e instanceof PullReservation p) {
        state.restorePull(p);
      } else if (e instanceof RunFact rf) {
        state.restoreRun(rf);
      }
      entries++;
      seq++;
      pos = f.end();
    }
  }
}
