package io.ql3.worker.runtime.plane;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The records of one cadence step, queued as ONE journal entry: the results of the runs that
 * finished, the settlements of the completions answered, the records of a pull answer's offers and
 * the next pull's reservation share one write and one force, in that order (a reservation is never
 * durable without what it was sized behind). What depends on a part (its completions queued, its
 * runs launched, the pull sent) is done only once that force returned, part by part in the order
 * they were added.
 *
 * <p>Guarantee: each part sees only its own records' futures, exactly as if it had been appended
 * alone (the journal refuses records one by one), and either {@link Part#durable} or, when nothing
 * could be queued, {@link Part#abandon} runs for every part. The first failure is rethrown after
 * every part had its turn (a failed journal stops the agent). Limit: a step's records are one
 * entry, so callers keep a step small (one pull answer, the runs finished and the completions
 * answered since the last step, each bounded by the slots and the outbox's in-flight bound).
 */
final class StepCommit {
  /** What a part does once its records are durable, or when they were never queued. */
  interface Part {
    /**
     * Its records' futures, in order, all done; throws when one was refused (after its own
     * clean-up).
     */
    void durable(List<CompletableFuture<Long>> writes);

    /** Its records were never queued: the journal refused the whole entry with {@code cause}. */
    void abandon(RuntimeException cause);
  }

  private final List<JournalRecord> records = new ArrayList<>();
  private final List<Part> parts = new ArrayList<>();
  private final List<Integer> ends = new ArrayList<>();

  /** Adds a part: its records go into this step's entry, {@code part} runs after the force. */
  void add(List<JournalRecord> partRecords, Part part) {
    records.addAll(partRecords);
    parts.add(part);
    ends.add(records.size());
  }

  boolean isEmpty() {
    return parts.isEmpty();
  }

  /** The attempts whose "offer accepted" is queued in this step. */
  List<RunKey> accepting() {
    return queued(JournalRecord.OfferAccepted.class, JournalRecord.OfferAccepted::runKey);
  }

  /** The pull reservations whose close is queued in this step. */
  List<String> closing() {
    return queued(JournalRecord.PullClosed.class, JournalRecord.PullClosed::pullId);
  }

  private <R extends JournalRecord, T> List<T> queued(Class<R> type, Function<R, T> what) {
    List<T> out = new ArrayList<>();
    for (JournalRecord r : records) {
      if (type.isInstance(r)) {
        out.add(what.apply(type.cast(r)));
      }
    }
    return out;
  }

  /**
   * Queues the step's records as one entry, waits for its force, then runs every part's follow-up.
   */
  void commit(Journal journal) {
    if (parts.isEmpty()) {
      return;
    }
    List<CompletableFuture<Long>> writes;
    try {
      writes = journal.appendAllAsync(records);
    } catch (RuntimeException e) {
      for (Part p : parts) {
        try {
          p.abandon(e); // every part has its turn, whatever one of them threw
        } catch (RuntimeException | Error later) {
          e.addSuppressed(later);
        }
      }
      throw e;
    }
    for (CompletableFuture<Long> w : writes) {
      w.exceptionally(e -> -1L).join(); // the entry's one force; a refused record fails alone
    }
    Throwable first = null;
    int from = 0;
    for (int i = 0; i < parts.size(); i++) {
      int to = ends.get(i);
      try {
        parts.get(i).durable(writes.subList(from, to));
      } catch (RuntimeException | Error e) { // every part has its turn, whatever one of them threw
        first = keepFirst(first, e);
      }
      from = to;
    }
    rethrow(first);
  }

  /** {@code first}, with {@code next} suppressed in it; either may be null. */
  static Throwable keepFirst(Throwable first, Throwable next) {
    if (first == null) {
      return next;
    }
    if (next != null) {
      first.addSuppressed(next);
    }
    return first;
  }

  /** Throws {@code failure} (a RuntimeException or an Error), if any. */
  static void rethrow(Throwable failure) {
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
  }
}
