package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The log segment the writer thread appends to, and how the log moves on when that segment is full:
 * a new segment, or a compaction (a snapshot of the live state, then the log it covers is dropped;
 * docs/journal.md, section 6).
 *
 * <p>Guarantees: a new segment exists completely (zero-filled, header, forced, renamed, directory
 * forced: {@link SegmentFiles#createLog}) before anything is written into it. A snapshot becomes
 * visible only complete (temp, force, rename, directory force), and the files it covers are deleted
 * only after the next segment exists, so a crash at any {@link CompactionPoint} recovers the same
 * facts.
 *
 * <p>Limits: used by the writer thread only ({@link JournalWriter}), plus {@link #close} once that
 * thread has stopped; no locking of its own. {@link #rollLocked} and {@link #compactLocked} read
 * the state: the caller holds the journal's state lock, and calls them only when every record
 * applied so far is durable (between batches, or before anything of the batch is encoded). The
 * writer writes each batch at {@link #activePos} and advances it itself (its commit point).
 */
final class SegmentRoller {
  private final JournalConfig config;
  private final Storage storage;
  private final Consumer<CompactionPoint> hook;
  private final JournalState state;
  private final CRC32C crc;
  private final SecureRandom random = new SecureRandom();

  // The active segment: the writer reads these, and advances activePos, when it commits a batch.
  Storage.StorageFile active;
  SegmentHeader activeHeader;
  int activePos;
  private String activeName;
  private int logSegments;

  // Written by the writer thread only; read racily (volatile) for metrics.
  volatile long statSegments;
  volatile long statCompactions;

  SegmentRoller(
      JournalConfig config,
      Storage storage,
      Consumer<CompactionPoint> hook,
      JournalState state,
      CRC32C crc) {
    this.config = config;
    this.storage = storage;
    this.hook = hook;
    this.state = state;
    this.crc = crc;
  }

  /**
   * Counts the log segments recovery left and continues the recovered active segment when it ends
   * at the last record and has the configured size; otherwise starts a new segment.
   */
  void open(Recovery.Plan plan) throws IOException {
    for (String n : storage.list()) {
      if (SegmentFiles.logBase(n) >= 0) {
        logSegments++;
      }
    }
    if (plan.activeName != null
        && plan.activeLastSeq == state.lastSeq()
        && plan.activeCapacity == config.segmentBytes()) {
      active = storage.open(plan.activeName, false);
      activeName = plan.activeName;
      activeHeader = plan.activeHeader;
      activePos = plan.activeEnd;
    } else {
      newSegment();
    }
  }

  /** The active segment is full: compacts when enough log segments exist, else starts the next. */
  void rollLocked() throws IOException {
    if (logSegments >= config.compactAfterSegments()) {
      compactLocked();
    } else {
      newSegment();
    }
  }

  private void newSegment() throws IOException {
    long base = state.lastSeq() + 1;
    SegmentHeader h =
        new SegmentHeader(
            SegmentHeader.VERSION,
            SegmentHeader.KIND_LOG,
            random.nextLong(),
            base,
            config.workerId());
    String name = SegmentFiles.logName(base);
    Storage.StorageFile f = SegmentFiles.createLog(storage, name, config.segmentBytes(), h);
    if (active != null) {
      active.close();
    }
    active = f;
    activeName = name;
    activeHeader = h;
    activePos = SegmentHeader.SIZE;
    logSegments++;
    statSegments++;
  }

  /**
   * Writes the live state as a snapshot and drops the log it covers. Every record applied is
   * durable here (called between batches). Crash-safe at every step: the snapshot becomes visible
   * only complete (temp, force, rename, directory force) and old files go only after.
   */
  void compactLocked() throws IOException {
    long s = state.lastSeq();
    String snapName = SegmentFiles.snapshotName(s);
    ByteBuffer snap = SnapshotWriter.encode(state, config.workerId(), random.nextLong(), crc);
    String tmp = SegmentFiles.tempName(snapName);
    try (Storage.StorageFile f = storage.open(tmp, true)) {
      f.write(snap, 0);
      hook.accept(CompactionPoint.SNAPSHOT_TEMP_WRITTEN);
      f.force(true);
    }
    hook.accept(CompactionPoint.SNAPSHOT_TEMP_FORCED);
    storage.rename(tmp, snapName);
    hook.accept(CompactionPoint.SNAPSHOT_RENAMED);
    storage.syncDirectory();
    hook.accept(CompactionPoint.SNAPSHOT_DIR_SYNCED);
    newSegment();
    hook.accept(CompactionPoint.NEW_SEGMENT_CREATED);
    boolean first = true;
    for (String n : storage.list()) {
      boolean oldLog = SegmentFiles.logBase(n) >= 0 && !n.equals(activeName);
      boolean oldSnap = SegmentFiles.snapshotSeq(n) >= 0 && !n.equals(snapName);
      if (oldLog || oldSnap) {
        storage.delete(n);
        if (first) {
          hook.accept(CompactionPoint.OLD_FILE_DELETED);
          first = false;
        }
      }
    }
    storage.syncDirectory();
    logSegments = 1;
    statCompactions++;
    hook.accept(CompactionPoint.DONE);
  }

  /** Closes the active segment's file, if any. Its data is already forced. */
  void close() {
    try {
      if (active != null) {
        active.close();
      }
    } catch (IOException ignored) {
      // The data is already forced; a close error changes nothing durable.
    }
  }
}
