package io.ql3.worker.journal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Immutable derived state of the journal: what recovery (or the last durable append) established.
 * Identical before and after compaction, and across repeated restarts.
 *
 * @param lastSeq sequence number of the last durable record
 * @param session the last session, if any
 * @param accepted runs accepted and not started
 * @param running runs started with no result (after a crash: outcome uncertain)
 * @param pendingCompletions runs with a recorded result not yet acknowledged
 * @param settled recently settled runs, oldest first, bounded by the completion window
 * @param openPulls pull reservations not yet closed
 * @param recoveryRequired present when the journal needs an operator
 */
public record JournalFacts(
    String workerId,
    long lastSeq,
    Optional<SessionFact> session,
    List<RunFact> accepted,
    List<RunFact> running,
    List<RunFact> pendingCompletions,
    List<RunFact> settled,
    List<PullReservation> openPulls,
    Optional<RecoveryRequired> recoveryRequired) {

  public JournalFacts {
    accepted = List.copyOf(accepted);
    running = List.copyOf(running);
    pendingCompletions = List.copyOf(pendingCompletions);
    // The journal's own snapshot of the window is immutable already (copying it after every
    // append cost ~1,000 allocations on the pull path); any other list is copied.
    settled = settled instanceof SettledWindow.View ? settled : List.copyOf(settled);
    openPulls = List.copyOf(openPulls);
  }

  /** Runs that hold a slot: accepted, running, or awaiting completion delivery. */
  public int heldRuns() {
    return accepted.size() + running.size() + pendingCompletions.size();
  }

  /** True when this attempt holds a slot (one of {@link #heldRuns()}). */
  public boolean holds(RunKey key) {
    for (List<RunFact> list : List.of(accepted, running, pendingCompletions)) {
      for (RunFact f : list) {
        if (f.key().equals(key)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Slots reserved by open pulls. */
  public int reservedSlots() {
    int n = 0;
    for (PullReservation p : openPulls) {
      n += p.maxRuns();
    }
    return n;
  }

  /** The recorded completion of a recently settled or pending attempt, for redelivery dedup. */
  public Optional<RunFact> recentCompletion(String runId, long attempt) {
    RunKey key = new RunKey(runId, attempt);
    for (RunFact f : pendingCompletions) {
      if (f.key().equals(key)) {
        return Optional.of(f);
      }
    }
    if (settled instanceof SettledWindow.View w) {
      return Optional.ofNullable(w.find(key)); // a hash lookup, not a scan of the window
    }
    for (RunFact f : settled) {
      if (f.key().equals(key)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Completion window keyed by attempt (settled runs, bounded). */
  public Map<RunKey, RunFact> completionWindow() {
    java.util.LinkedHashMap<RunKey, RunFact> m = new java.util.LinkedHashMap<>();
    for (RunFact f : settled) {
      m.put(f.key(), f);
    }
    return java.util.Collections.unmodifiableMap(m);
  }
}
