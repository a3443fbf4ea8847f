package io.ql3.worker.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * The crash-safe journal: the single authority for local execution state.
 *
 * <p>{@link #append} returns only after the record is durable. Concurrent appends share one write
 * and one {@code force}: a single writer thread takes whatever is queued, writes it once, forces
 * once, and starts again as soon as more is queued (no timer). The queue is bounded, so producers
 * block when the disk cannot keep up. A failed write or force is never retried: pending appends
 * fail and the journal stays {@link Status#FAILED}.
 *
 * <p>Limits: one owner per directory (another process or another open in this JVM is refused); a
 * journal that needs an operator ({@link Status#RECOVERY_REQUIRED}) serves read-only facts and
 * refuses appends; after {@link Status#FAILED} only a new process recovers it.
 *
 * <p>This class is the public face. The work is done by package-private classes, one job each:
 * {@link JournalOpener} (ownership, recovery applied, uncertain runs declared, damaged-log
 * resolution), {@link JournalWriter} (the writer thread, its group commit and commit point) and
 * {@link SegmentRoller} (the active segment, new segments, compaction); docs/journal.md describes
 * the format and the guarantees.
 */
public final class Journal implements AutoCloseable {

  /** Life of an open journal. */
  public enum Status {
    /** Appends accepted. */
    OPEN,
    /** Recovery found something it must not repair; read-only facts, no appends. */
    RECOVERY_REQUIRED,
    /** A write or force failed; unusable until reopened by a new process. */
    FAILED,
    /** Closed: the lock is released; nothing more is read or written. */
    CLOSED;

    /**
     * The transition table: whether this status may move to {@code next} (another status). A
     * journal opens as {@link #OPEN} or {@link #RECOVERY_REQUIRED}, an open one may fail, and every
     * one ends {@link #CLOSED}.
     */
    boolean canMoveTo(Status next) {
      return switch (this) {
        case OPEN -> next == FAILED || next == CLOSED;
        case RECOVERY_REQUIRED, FAILED -> next == CLOSED;
        case CLOSED -> false;
      };
    }
  }

  private final JournalConfig config;
  private final Storage storage;
  private final OwnerLock lock;
  private final JournalWriter writer;
  private final RecoveryReport report;

  Journal(
      JournalConfig config,
      Storage storage,
      OwnerLock lock,
      JournalWriter writer,
      RecoveryReport report) {
    this.config = config;
    this.storage = storage;
    this.lock = lock;
    this.writer = writer;
    this.report = report;
  }

  /**
   * Takes ownership of the directory and recovers it. The returned journal is {@link Status#OPEN}
   * or {@link Status#RECOVERY_REQUIRED} (see {@link #report()}).
   *
   * @throws JournalOwnedException another process or another open in this JVM owns it
   * @throws UncheckedIOException the directory cannot be read or repaired
   */
  public static Journal open(JournalConfig config) {
    return open(config, new FileStorage(config.directory()), p -> {});
  }

  static Journal open(JournalConfig config, Storage storage, Consumer<CompactionPoint> hook) {
    return JournalOpener.open(config, storage, hook);
  }

  /**
   * Operator resolution of a damaged log, on purpose and never by deleting anything: the journal
   * must currently report exactly {@code reviewed} (so the operator resolves what they looked at).
   * Everything from the damage on is moved aside, not deleted: the damaged segment's bytes after
   * its last committed batch are copied to {@code <segment>.discarded.<n>} and zeroed in place, and
   * every later segment is renamed to {@code <name>.discarded.<n>}. Records in them are given up:
   * runs they described must be reconciled with the server by hand. Then the journal is opened
   * normally (its report lists what was moved in {@code removedFiles}).
   *
   * @throws JournalStateException the journal's problem is not {@code reviewed}, or is not a
   *     damaged log (foreign worker, unknown version and a damaged snapshot are not resolved this
   *     way)
   */
  public static Journal discardDamagedLog(JournalConfig config, RecoveryRequired reviewed) {
    return JournalOpener.discardDamagedLog(config, reviewed);
  }

  /**
   * Appends a record and returns its sequence number once it is durable.
   *
   * @throws JournalStateException the record is not allowed now (nothing written)
   * @throws JournalFailedException a write or force failed (now or before)
   * @throws JournalRecoveryRequiredException the journal needs an operator
   * @throws JournalClosedException the journal is closed
   */
  public long append(JournalRecord record) {
    return await(appendAsync(record));
  }

  /**
   * Queues a record; the future completes with its sequence number once durable. Blocks only while
   * the queue is full (back-pressure).
   */
  public CompletableFuture<Long> appendAsync(JournalRecord record) {
    if (record == null) {
      throw new NullPointerException("record");
    }
    return writer.submit(record);
  }

  /**
   * Queues records that must become durable together, in this order, as one queue entry: the writer
   * takes them all at once, so they share one write and one force (only a segment roll in the
   * middle of them can split them in two forces). Without this, a writer woken by the first of
   * several {@link #appendAsync} calls may force it alone before the others are queued. The group
   * counts as one entry against the queue's capacity (callers keep groups small: the execution
   * plane's one cadence step, bounded by its slots). Refused records fail alone, as with {@link
   * #appendAsync}.
   *
   * @return one future per record, in order, each completing with its sequence number once durable
   */
  public List<CompletableFuture<Long>> appendAllAsync(List<JournalRecord> records) {
    List<Pending> members = new ArrayList<>(records.size());
    for (JournalRecord r : records) {
      if (r == null) {
        throw new NullPointerException("record");
      }
      members.add(new Pending(r));
    }
    List<CompletableFuture<Long>> futures = new ArrayList<>(members.size());
    for (Pending m : members) {
      futures.add(m.done);
    }
    if (members.isEmpty()) {
      return futures;
    }
    writer.submitGroup(members);
    return futures;
  }

  /**
   * The derived state at the last commit point: every record whose {@link #append} returned or
   * whose future completed, none that is not durable yet. Never waits for the disk.
   */
  public JournalFacts facts() {
    return writer.facts();
  }

  public Status status() {
    return writer.status();
  }

  /** Counters since open. */
  public JournalStats stats() {
    return writer.stats();
  }

  /** What the open that produced this journal did. */
  public RecoveryReport report() {
    return report;
  }

  public JournalConfig config() {
    return config;
  }

  /** Usable bytes on the journal's file system (for the capacity floor). */
  public long usableSpace() {
    try {
      return storage.usableSpace();
    } catch (IOException e) {
      return 0;
    }
  }

  /** Runs a compaction now (between batches) and waits for it. */
  void compactNow() {
    await(writer.requestCompaction());
  }

  @Override
  public void close() {
    if (!writer.stop()) {
      return;
    }
    try {
      lock.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release journal lock", e);
    } finally {
      writer.closed();
    }
  }

  static long await(CompletableFuture<Long> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalException(
          "interrupted while waiting for durability (the record may still be written)", e);
    } catch (ExecutionException | CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw new JournalException("append failed", c);
    }
  }
}
