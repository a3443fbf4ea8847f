package io.ql3.worker.journal;

import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The crash-safe journal: the single authority for local execution state.
 *
 * <p>{@link #append} returns only after the record is durable. Concurrent appends share one write
 * and one {@code force}: a single writer thread takes whatever is queued, writes it once, forces
 * once, and starts again as soon as more is queued (no timer). The queue is bounded, so producers
 * block when the disk cannot keep up. A failed write or force is never retried: pending appends
 * fail and the journal stays {@link Status#FAILED}.
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
    CLOSED
  }

  private static final class Pending {
    /**
     * What a queue entry is: a record, a group of records, or a signal to the writer (no record).
     */
    enum Kind {
      RECORD,
      GROUP,
      WAKE_UP,
      STOP
    }

    final Kind kind;
    final JournalRecord record;

    /** Non-null: records queued as ONE entry so the writer never splits them between forces. */
    final List<Pending> group;

    final CompletableFuture<Long> done = new CompletableFuture<>();

    Pending(JournalRecord record) {
      this(Kind.RECORD, java.util.Objects.requireNonNull(record), null);
    }

    Pending(List<Pending> group) {
      this(Kind.GROUP, null, group);
    }

    private Pending(Kind kind, JournalRecord record, List<Pending> group) {
      this.kind = kind;
      this.record = record;
      this.group = group;
    }

    /** Wakes the writer so it compacts at its next batch boundary; writes nothing. */
    static Pending wakeUp() {
      return new Pending(Kind.WAKE_UP, null, null);
    }

    void fail(Throwable e) {
      if (group != null) {
        for (Pending m : group) {
          m.done.completeExceptionally(e);
        }
      }
      done.completeExceptionally(e);
    }
  }

  private static final Pending STOP = new Pending(Pending.Kind.STOP, null, null);

  private final JournalConfig config;
  private final Storage storage;
  private final OwnerLock lock;
  private final Consumer<CompactionPoint> hook;
  private final Object stateLock = new Object();
  private final JournalState state;
  private final RecoveryRequired problem;
  private final ArrayBlockingQueue<Pending> queue;
  private final SecureRandom random = new SecureRandom();
  private final CRC32C crc = new CRC32C();
  private volatile Status status;
  private volatile Throwable failure;
  private RecoveryReport report;
  private Thread writer;

  // Writer-thread state.
  private long appliedSeq;
  private long durableSeq;
  private Storage.StorageFile active;
  private String activeName;
  private SegmentHeader activeHeader;
  private int activePos;
  private int logSegments;
  private ByteBuffer batchBuf;
  // Written by the writer thread only; read racily (volatile) for metrics.
  private volatile long statRecords;
  private volatile long statForces;
  private volatile long statSegments;
  private volatile long statCompactions;
  private final ByteBuffer scratch = ByteBuffer.allocate(RecordCodec.MAX_PAYLOAD);

  private Journal(
      JournalConfig config,
      Storage storage,
      OwnerLock lock,
      Consumer<CompactionPoint> hook,
      JournalState state,
      RecoveryRequired problem) {
    this.config = config;
    this.storage = storage;
    this.lock = lock;
    this.hook = hook;
    this.state = state;
    this.problem = problem;
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.appliedSeq = state.lastSeq();
    this.durableSeq = state.lastSeq();
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
    OwnerLock lock;
    try {
      Files.createDirectories(config.directory());
      lock = OwnerLock.acquire(config.directory());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot own journal " + config.directory(), e);
    }
    try {
      return recover(config, storage, lock, hook);
    } catch (IOException | RuntimeException e) {
      try {
        lock.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException("cannot recover journal " + config.directory(), io);
      }
      throw (RuntimeException) e;
    }
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
    Storage storage = new FileStorage(config.directory());
    List<String> moved = new ArrayList<>();
    try (OwnerLock lock = OwnerLock.acquire(config.directory())) {
      Recovery.Plan plan =
          new Recovery(storage, config.workerId(), config.completionWindow()).run();
      if (plan.problem == null || !plan.problem.equals(reviewed)) {
        throw new JournalStateException(
            "the journal reports "
                + plan.problem
                + ", not the reviewed "
                + reviewed
                + "; nothing changed");
      }
      if (plan.damagedFile == null) {
        throw new JournalStateException(
            plan.problem.reason() + " is not resolved by discarding a damaged log");
      }
      if (plan.damagedKeep < 0) {
        moved.add(plan.damagedFile);
      } else {
        ByteBuffer all = SegmentFiles.readAll(storage, plan.damagedFile);
        all.position(plan.damagedKeep);
        String aside = asideName(storage, plan.damagedFile);
        try (Storage.StorageFile f = storage.open(aside, true)) {
          f.write(all.slice(), 0);
          f.force(true);
        }
        storage.syncDirectory();
        try (Storage.StorageFile f = storage.open(plan.damagedFile, false)) {
          f.write(ByteBuffer.allocate(all.capacity() - plan.damagedKeep), plan.damagedKeep);
          f.force(false);
        }
      }
      moved.addAll(plan.afterDamage);
      for (String n : moved) {
        storage.rename(n, asideName(storage, n));
      }
      storage.syncDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot resolve journal " + config.directory(), e);
    }
    return open(config);
  }

  /** A free {@code <name>.discarded.<n>} name: earlier resolutions are never overwritten. */
  private static String asideName(Storage storage, String name) throws IOException {
    List<String> names = storage.list();
    for (int n = 1; ; n++) {
      String candidate = name + ".discarded." + n;
      if (!names.contains(candidate)) {
        return candidate;
      }
    }
  }

  private static Journal recover(
      JournalConfig config, Storage storage, OwnerLock lock, Consumer<CompactionPoint> hook)
      throws IOException {
    Recovery.Plan plan = new Recovery(storage, config.workerId(), config.completionWindow()).run();
    Journal j = new Journal(config, storage, lock, hook, plan.state, plan.problem);
    if (plan.problem != null) {
      j.status = Status.RECOVERY_REQUIRED;
      j.report =
          new RecoveryReport(
              plan.replayed, plan.snapshotSeq, 0, List.of(), List.of(), Optional.of(plan.problem));
      return j;
    }
    long truncated = 0;
    if (plan.activeName != null && plan.activeDirtyEnd > plan.activeEnd) {
      // Torn tail: zero it (keeping the file preallocated) so no byte of it can ever be read back.
      truncated = plan.activeDirtyEnd - plan.activeEnd;
      try (Storage.StorageFile f = storage.open(plan.activeName, false)) {
        ByteBuffer zeros = ByteBuffer.allocate((int) truncated);
        f.write(zeros, plan.activeEnd);
        f.force(false);
      }
    }
    for (String name : plan.toDelete) {
      storage.delete(name);
    }
    if (!plan.toDelete.isEmpty()) {
      storage.syncDirectory();
    }
    j.startWriter(plan);
    List<RunFact> uncertain = j.declareUncertain();
    j.report =
        new RecoveryReport(
            plan.replayed, plan.snapshotSeq, truncated, plan.toDelete, uncertain, Optional.empty());
    return j;
  }

  private void startWriter(Recovery.Plan plan) throws IOException {
    batchBuf = ByteBuffer.allocateDirect(config.segmentBytes());
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
    status = Status.OPEN;
    writer =
        new Thread(
            this::writerLoop, "ql3-journal-writer[" + config.directory().getFileName() + "]");
    writer.setDaemon(true);
    writer.start();
  }

  /** Started runs with no result become UNCERTAIN results, durably, exactly once. */
  private List<RunFact> declareUncertain() {
    List<JournalState.Run> started;
    synchronized (stateLock) {
      started = state.startedWithoutResult();
    }
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    List<RunFact> declared = new ArrayList<>();
    for (JournalState.Run run : started) {
      declared.add(run.fact());
      futures.add(
          appendAsync(
              new ResultRecorded(
                  run.offer.runId(), run.offer.attempt(), RunResult.uncertainAfterCrash())));
    }
    for (CompletableFuture<Long> f : futures) {
      await(f);
    }
    return declared;
  }

  // ------------------------------------------------------------------ public API

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
   * the queue is full (back-pressure). Use it for records that may ride the next group commit (e.g.
   * completion acknowledgements).
   */
  public CompletableFuture<Long> appendAsync(JournalRecord record) {
    if (record == null) {
      throw new NullPointerException("record");
    }
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

  /**
   * Queues records that must become durable together, in this order, as one queue entry: the writer
   * takes them all at once, so they share one write and one force (only a segment roll in the
   * middle of them can split them in two forces). Without this, a writer woken by the first of
   * several {@link #appendAsync} calls may force it alone before the others are queued. The group
   * counts as one entry against the queue's capacity (callers keep groups small: one pull answer's
   * records). Refused records fail alone, as with {@link #appendAsync}.
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
    return futures;
  }

  /** The durable derived state (waits at most for the force in progress). */
  public JournalFacts facts() {
    synchronized (stateLock) {
      while (status == Status.OPEN && appliedSeq != durableSeq) {
        try {
          stateLock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new JournalException("interrupted while reading facts", e);
        }
      }
      if (status == Status.FAILED) {
        throw (JournalFailedException) unusable();
      }
      if (status == Status.CLOSED) {
        throw new JournalClosedException("journal is closed");
      }
      return state.facts(problem);
    }
  }

  public Status status() {
    return status;
  }

  /** Counters since open. */
  public JournalStats stats() {
    return new JournalStats(statRecords, statForces, statSegments, statCompactions);
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
    await(done);
  }

  private volatile CompletableFuture<Long> compactRequest;

  @Override
  public void close() {
    Status s = status;
    if (s == Status.CLOSED) {
      return;
    }
    if (s == Status.OPEN) {
      try {
        queue.put(STOP);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (writer != null) {
      boolean interrupted = false;
      while (true) {
        try {
          writer.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (status != Status.FAILED) {
      status = Status.CLOSED;
    }
    Pending p;
    while ((p = queue.poll()) != null) {
      p.fail(new JournalClosedException("journal closed before the record was written"));
    }
    CompletableFuture<Long> req = compactRequest;
    if (req != null) {
      req.completeExceptionally(new JournalClosedException("journal closed before compaction"));
    }
    try {
      if (active != null) {
        active.close();
      }
    } catch (IOException ignored) {
      // The data is already forced; a close error changes nothing durable.
    }
    try {
      lock.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release journal lock", e);
    } finally {
      status = Status.CLOSED;
      synchronized (stateLock) {
        stateLock.notifyAll();
      }
    }
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

  private static long await(CompletableFuture<Long> f) {
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
        expandGroups(batch);
        int stopAt = batch.indexOf(STOP);
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

  /** Replaces each group entry by its records, in place and in order. */
  private static void expandGroups(List<Pending> batch) {
    boolean any = false;
    for (Pending p : batch) {
      if (p.group != null) {
        any = true;
        break;
      }
    }
    if (!any) {
      return;
    }
    List<Pending> flat = new ArrayList<>(batch.size() + 8);
    for (Pending p : batch) {
      if (p.group != null) {
        flat.addAll(p.group);
      } else {
        flat.add(p);
      }
    }
    batch.clear();
    batch.addAll(flat);
  }

  private void fail(Throwable e, List<Pending> batch, ArrayDeque<Pending> carry) {
    failure = e;
    status = Status.FAILED;
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
    synchronized (stateLock) {
      stateLock.notifyAll();
    }
  }

  /**
   * Encodes as much of {@code batch} as fits the active segment, writes it once, forces once. What
   * does not fit goes to {@code carry} for the next round (a batch never spans segments).
   */
  private void writeBatch(List<Pending> batch, ArrayDeque<Pending> carry) throws IOException {
    batchBuf.clear();
    long salt = activeHeader.salt();
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
        if (activePos + batchBuf.position() + frame > config.segmentBytes()) {
          if (!written.isEmpty() || lastFrame >= 0) {
            carry.addAll(batch.subList(i, batch.size()));
            break;
          }
          // Nothing encoded yet: everything applied so far is durable, roll (or compact).
          if (logSegments >= config.compactAfterSegments()) {
            compactLocked();
          } else {
            newSegment();
          }
          salt = activeHeader.salt();
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
        lastFrame =
            Frame.write(
                batchBuf, crc, salt, seq, batchFirst, RecordCodec.kindOf(p.record), scratch);
        written.add(p);
        seqs.add(seq);
      }
      appliedSeq = state.lastSeq();
    }
    if (lastFrame < 0) {
      return;
    }
    Frame.markLast(batchBuf, crc, salt, lastFrame);
    batchBuf.flip();
    int n = batchBuf.remaining();
    active.write(batchBuf, activePos);
    active.force(false);
    activePos += n;
    statForces++;
    statRecords += written.size();
    synchronized (stateLock) {
      durableSeq = appliedSeq;
      stateLock.notifyAll();
    }
    for (int i = 0; i < written.size(); i++) {
      written.get(i).done.complete(seqs.get(i));
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

  private void compact() throws IOException {
    synchronized (stateLock) {
      compactLocked();
    }
  }

  /**
   * Writes the live state as a snapshot and drops the log it covers. Every record applied is
   * durable here (called between batches). Crash-safe at every step: the snapshot becomes visible
   * only complete (temp, force, rename, directory force) and old files go only after.
   */
  private void compactLocked() throws IOException {
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
}
