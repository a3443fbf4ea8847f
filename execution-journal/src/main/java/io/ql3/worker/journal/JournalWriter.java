package io.ql3.worker.journal;

import io.ql3.worker.journal.Journal.Status;
import java.io.IOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The journal's single writer thread and its group commit: appending threads queue {@link Pending}
 * entries; the writer takes whatever is queued, checks and applies each record to the state,
 * encodes the batch, writes it once and forces once, and starts again as soon as more is queued (no
 * timer).
 *
 * <p><b>The commit point</b> is the return of {@code force(false)} on the active segment in {@link
 * #writeBatch}: only then are the batch's facts published and do its futures complete. Records are
 * applied to the state before the write (under {@code stateLock}); the facts of the state as it
 * stands at the commit point are published then, and {@link #facts} returns the last ones published
 * without waiting for a force in progress, so nobody reads a record that is not durable yet and
 * nobody waits for the disk to read.
 *
 * <p>Guarantees: a batch is one write and one force and never spans two segments (what does not fit
 * waits for the next round, after a roll or a compaction by {@link SegmentRoller}); a group entry
 * ({@link Journal#appendAllAsync}) is never split except by such a roll; a refused record fails
 * alone and consumes no sequence number. The queue is bounded: producers block while it is full.
 *
 * <p>Limits: a failed write or force is never retried (fsyncgate): everything pending fails with
 * {@link JournalFailedException} and the journal stays {@link Status#FAILED} until a new process
 * recovers it. An append whose caller is interrupted while waiting may still be written. This class
 * also holds the journal's {@link Status}; {@link Journal} is its public face.
 */
final class JournalWriter {
  private final JournalConfig config;
  private final JournalState state;
  private final RecoveryRequired problem;
  private final Object stateLock = new Object();
  private final ArrayBlockingQueue<Pending> queue;
  private final CRC32C crc = new CRC32C();
  private final SegmentRoller segments;
  private volatile Status status;
  private volatile Throwable failure;
  private volatile CompletableFuture<Long> compactRequest;

  /** The facts at the last commit point (set under {@code stateLock}, read without it). */
  private volatile JournalFacts durableFacts;

  private Thread thread;

  // Writer-thread state.
  private ByteBuffer batchBuf;
  // Written by the writer thread only; read racily (volatile) for metrics.
  private volatile long statRecords;
  private volatile long statForces;
  private final ByteBuffer scratch = ByteBuffer.allocate(RecordCodec.MAX_PAYLOAD);

  JournalWriter(
      JournalConfig config,
      Storage storage,
      Consumer<CompactionPoint> hook,
      JournalState state,
      RecoveryRequired problem) {
    this.config = config;
    this.state = state;
    this.problem = problem;
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.segments = new SegmentRoller(config, storage, hook, state, crc);
  }

  /** Recovery found a problem: the journal serves read-only facts, the thread never starts. */
  void recoveryRequired() {
    become(Status.RECOVERY_REQUIRED);
  }

  /** Opens the active segment (recovered or new), then starts the writer thread: OPEN. */
  void start(Recovery.Plan plan) throws IOException {
    batchBuf = BatchBuffers.create(config.segmentBytes());
    segments.open(plan);
    synchronized (stateLock) {
      durableFacts = state.facts(null);
    }
    become(Status.OPEN);
    thread =
        new Thread(
            this::writerLoop, "ql3-journal-writer[" + config.directory().getFileName() + "]");
    thread.setDaemon(true);
    thread.start();
  }

  /** Started runs with no result, read under the state lock. */
  List<JournalState.Run> startedWithoutResult() {
    synchronized (stateLock) {
      return state.startedWithoutResult();
    }
  }

  // ------------------------------------------------------------------ appending threads

  /** {@link Journal#appendAsync}, after its null check. */
  CompletableFuture<Long> submit(JournalRecord record) {
    checkUsable();
    Pending p = new Pending(record);
    try {
      queue.put(p);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalException("interrupted while waiting for queue space", e);
    }
    if (status != Status.OPEN && queue.remove(p)) {
      p.done.completeExceptionally(unusable());
    }
    return p.done;
  }

  /** {@link Journal#appendAllAsync}, after it built the members: they are queued as ONE entry. */
  void submitGroup(List<Pending> members) {
    checkUsable();
    Pending g = new Pending(List.copyOf(members));
    try {
      queue.put(g);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalException("interrupted while waiting for queue space", e);
    }
    if (status != Status.OPEN && queue.remove(g)) {
      g.fail(unusable());
    }
  }

  /**
   * {@link Journal#facts}: the facts at the last commit point. Never waits for a force in progress:
   * it holds every record whose append returned (or whose future completed) and none that is not
   * durable yet.
   */
  JournalFacts facts() {
    if (status == Status.OPEN) {
      return durableFacts;
    }
    synchronized (stateLock) {
      if (status == Status.FAILED) {
        throw (JournalFailedException) unusable();
      }
      if (status == Status.CLOSED) {
        throw new JournalClosedException("journal is closed");
      }
      return state.facts(problem);
    }
  }

  Status status() {
    return status;
  }

  JournalStats stats() {
    return new JournalStats(
        statRecords, statForces, segments.statSegments, segments.statCompactions);
  }

  /** Asks for a compaction at the writer's next batch boundary; the future completes after it. */
  CompletableFuture<Long> requestCompaction() {
    checkUsable();
    CompletableFuture<Long> done = new CompletableFuture<>();
    compactRequest = done;
    // A wake-up entry (no record): the writer compacts at its next batch boundary.
    try {
      queue.put(Pending.wakeUp());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalException("interrupted", e);
    }
    return done;
  }

  /**
   * First part of {@link Journal#close}: writes everything queued before it, stops the thread,
   * refuses what is left and closes the active segment. False when the journal was already closed.
   * The caller then releases the lock and calls {@link #closed}.
   */
  boolean stop() {
    Status s = status;
    if (s == Status.CLOSED) {
      return false;
    }
    // An interrupted caller still stops the writer (a STOP never queued would leave join waiting
    // forever); its interrupt is kept for it.
    boolean interrupted = false;
    if (s == Status.OPEN) {
      while (true) {
        try {
          queue.put(Pending.STOP);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (thread != null) {
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (status != Status.FAILED) {
      become(Status.CLOSED);
    }
    Pending p;
    while ((p = queue.poll()) != null) {
      p.fail(new JournalClosedException("journal closed before the record was written"));
    }
    CompletableFuture<Long> req = compactRequest;
    if (req != null) {
      req.completeExceptionally(new JournalClosedException("journal closed before compaction"));
    }
    segments.close();
    return true;
  }

  /** Last step of {@link Journal#close}, whatever releasing the lock did: CLOSED. */
  void closed() {
    become(Status.CLOSED);
  }

  /**
   * Moves the status as {@link Status#canMoveTo} allows (staying is a no-op); the first status
   * (OPEN or RECOVERY_REQUIRED) is set once, before any other thread sees this writer. Each move is
   * made by one thread at a time: the writer thread's FAILED before {@link #stop} joins it, CLOSED
   * after.
   *
   * @throws IllegalStateException for a move the table does not allow (a bug)
   */
  private void become(Status next) {
    Status current = status;
    if (next == current) {
      return;
    }
    if (current == null
        ? next != Status.OPEN && next != Status.RECOVERY_REQUIRED
        : !current.canMoveTo(next)) {
      throw new IllegalStateException("journal status " + current + " cannot become " + next);
    }
    status = next;
  }

  private void checkUsable() {
    if (status != Status.OPEN) {
      throw unusable();
    }
  }

  private JournalException unusable() {
    return switch (status) {
      case RECOVERY_REQUIRED -> new JournalRecoveryRequiredException(problem);
      case FAILED ->
          new JournalFailedException(
              "journal is unusable after an I/O failure: " + failure, failure);
      default -> new JournalClosedException("journal is closed");
    };
  }

  // ------------------------------------------------------------------ writer thread

  private void writerLoop() {
    ArrayDeque<Pending> carry = new ArrayDeque<>();
    List<Pending> batch = new ArrayList<>();
    boolean stopping = false;
    try {
      while (true) {
        if (carry.isEmpty()) {
          if (stopping) {
            return;
          }
          batch.add(queue.take());
          queue.drainTo(batch);
        } else {
          batch.addAll(carry);
          carry.clear();
          if (!stopping) {
            queue.drainTo(batch);
          }
        }
        Pending.expandGroups(batch);
        int stopAt = batch.indexOf(Pending.STOP);
        if (stopAt >= 0) {
          // Everything queued before close() is written; anything after it is refused.
          for (Pending late : batch.subList(stopAt + 1, batch.size())) {
            late.done.completeExceptionally(new JournalClosedException("journal closed"));
          }
          batch.subList(stopAt, batch.size()).clear();
          stopping = true;
        }
        writeBatch(batch, carry);
        batch.clear();
        CompletableFuture<Long> req = compactRequest;
        if (req != null && carry.isEmpty()) {
          compactRequest = null;
          compact();
          req.complete(state.lastSeq());
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      fail(e, batch, carry);
    } catch (InterruptedException e) {
      fail(e, batch, carry);
    }
  }

  private void fail(Throwable e, List<Pending> batch, ArrayDeque<Pending> carry) {
    failure = e;
    become(Status.FAILED);
    JournalFailedException ex =
        new JournalFailedException("journal write failed, nothing retried: " + e, e);
    for (Pending p : batch) {
      p.fail(ex);
    }
    for (Pending p : carry) {
      p.fail(ex);
    }
    CompletableFuture<Long> req = compactRequest;
    if (req != null) {
      req.completeExceptionally(ex);
    }
    Pending p;
    while ((p = queue.poll()) != null) {
      p.fail(ex);
    }
  }

  /**
   * Encodes as much of {@code batch} as fits the active segment, writes it once, forces once. What
   * does not fit goes to {@code carry} for the next round (a batch never spans segments).
   */
  private void writeBatch(List<Pending> batch, ArrayDeque<Pending> carry) throws IOException {
    batchBuf.clear();
    long salt = segments.activeHeader.salt();
    List<Pending> written = new ArrayList<>(batch.size());
    List<Long> seqs = new ArrayList<>(batch.size());
    int lastFrame = -1;
    long batchFirst = -1;
    synchronized (stateLock) {
      for (int i = 0; i < batch.size(); i++) {
        Pending p = batch.get(i);
        if (p.kind == Pending.Kind.WAKE_UP) {
          p.done.complete(-1L);
          continue;
        }
        scratch.clear();
        try {
          RecordCodec.encode(p.record, scratch);
        } catch (BufferOverflowException e) {
          p.done.completeExceptionally(
              new JournalStateException(
                  "record larger than " + RecordCodec.MAX_PAYLOAD + " bytes"));
          continue;
        }
        scratch.flip();
        int frame = Frame.HEADER + scratch.remaining();
        if (segments.activePos + batchBuf.position() + frame > config.segmentBytes()) {
          if (!written.isEmpty() || lastFrame >= 0) {
            carry.addAll(batch.subList(i, batch.size()));
            break;
          }
          // Nothing encoded yet: everything applied so far is durable, roll (or compact).
          segments.rollLocked();
          salt = segments.activeHeader.salt();
        }
        long seq = state.lastSeq() + 1;
        try {
          state.apply(p.record, seq);
        } catch (JournalStateException e) {
          p.done.completeExceptionally(e);
          continue;
        }
        if (batchFirst < 0) {
          batchFirst = seq;
        }
        batchBuf = BatchBuffers.withRoom(batchBuf, frame, config.segmentBytes());
        lastFrame =
            Frame.write(
                batchBuf, crc, salt, seq, batchFirst, RecordCodec.kindOf(p.record), scratch);
        written.add(p);
        seqs.add(seq);
      }
    }
    if (lastFrame < 0) {
      return;
    }
    Frame.markLast(batchBuf, crc, salt, lastFrame);
    batchBuf.flip();
    int n = batchBuf.remaining();
    segments.active.write(batchBuf, segments.activePos);
    // The commit point: once this force returns, the batch is durable.
    segments.active.force(false);
    segments.activePos += n;
    statForces++;
    statRecords += written.size();
    synchronized (stateLock) {
      durableFacts = state.facts(null);
    }
    for (int i = 0; i < written.size(); i++) {
      written.get(i).done.complete(seqs.get(i));
    }
  }

  private void compact() throws IOException {
    synchronized (stateLock) {
      segments.compactLocked();
    }
  }
}
