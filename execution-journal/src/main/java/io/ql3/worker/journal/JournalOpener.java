package io.ql3.worker.journal;

import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Opening a journal directory: takes ownership ({@link OwnerLock}), lets {@link Recovery} decide
 * (read-only), applies its plan only when it is clean, starts the writer and records the runs left
 * without a result as uncertain; and the operator's resolution of a damaged log.
 *
 * <p>Guarantees: when recovery reports a problem, nothing in the directory is touched and the
 * journal opens {@link Journal.Status#RECOVERY_REQUIRED}. Otherwise the only repairs are the ones
 * the plan names: the torn tail is zeroed in place (the file stays preallocated) and forced, then
 * leftover files are deleted and the directory forced, before the writer starts. Runs started with
 * no result are declared uncertain durably, exactly once, before {@code open} returns. If opening
 * fails, the lock is released. {@link #discardDamagedLog} moves bytes and files aside and never
 * deletes anything.
 *
 * <p>Limits: static steps with no state of their own. If declaring the uncertain runs fails (a
 * write error, or the opening thread interrupted while it waits), the writer is stopped before the
 * lock is released; the declarations it had already made are durable, the next open makes the rest.
 */
final class JournalOpener {
  private JournalOpener() {}

  /** {@link Journal#open}: owns the directory, recovers it, releases the lock on failure. */
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

  /** {@link Journal#discardDamagedLog}: moves the damage aside, then opens normally. */
  static Journal discardDamagedLog(JournalConfig config, RecoveryRequired reviewed) {
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
    return Journal.open(config);
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
    JournalWriter writer = new JournalWriter(config, storage, hook, plan.state, plan.problem);
    if (plan.problem != null) {
      writer.recoveryRequired();
      return new Journal(
          config,
          storage,
          lock,
          writer,
          new RecoveryReport(
              plan.replayed, plan.snapshotSeq, 0, List.of(), List.of(), Optional.of(plan.problem)));
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
    writer.start(plan);
    List<RunFact> uncertain;
    try {
      uncertain = declareUncertain(writer);
    } catch (RuntimeException e) {
      // open() releases the lock next: the writer stops first (what it was given is written or
      // refused), so nothing is written once another process may own the directory.
      writer.stop();
      writer.closed();
      throw e;
    }
    return new Journal(
        config,
        storage,
        lock,
        writer,
        new RecoveryReport(
            plan.replayed,
            plan.snapshotSeq,
            truncated,
            plan.toDelete,
            uncertain,
            Optional.empty()));
  }

  /** Started runs with no result become UNCERTAIN results, durably, exactly once. */
  private static List<RunFact> declareUncertain(JournalWriter writer) {
    List<JournalState.Run> started = writer.startedWithoutResult();
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    List<RunFact> declared = new ArrayList<>();
    for (JournalState.Run run : started) {
      declared.add(run.fact());
      futures.add(
          writer.submit(
              new ResultRecorded(
                  run.offer.runId(), run.offer.attempt(), RunResult.uncertainAfterCrash())));
    }
    for (CompletableFuture<Long> f : futures) {
      Journal.await(f);
    }
    return declared;
  }
}
