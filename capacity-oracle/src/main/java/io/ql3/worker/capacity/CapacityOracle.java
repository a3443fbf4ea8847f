package io.ql3.worker.capacity;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalException;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.PullReservation;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.journal.SessionStatus;
import java.util.Collection;
import java.util.Objects;

/**
 * The only source of the capacity the agent publishes: {@code availableSlots = maxConcurrentRuns −
 * runs held in the journal − slots reserved by open pulls}, clamped to {@code
 * 0..maxConcurrentRuns}, and exactly 0 unless the lifecycle is ACTIVE (or REGISTERING), the journal
 * is usable with a matching session, and the journal's file system has at least the configured
 * floor of free space.
 */
public final class CapacityOracle {
  private final CapacityLimits limits;
  private final JournalView journal;

  public CapacityOracle(CapacityLimits limits, Journal journal) {
    this(limits, JournalView.of(journal));
  }

  public CapacityOracle(CapacityLimits limits, JournalView journal) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.journal = Objects.requireNonNull(journal, "journal");
  }

  public CapacityLimits limits() {
    return limits;
  }

  /** The capacity to publish in the given lifecycle phase. */
  public Capacity compute(LifecyclePhase phase) {
    return compute(phase, QueuedAhead.NOTHING);
  }

  /**
   * The capacity for a record queued in the journal behind {@code ahead}, which may not be durable
   * yet: the record can only become durable after it, so what it commits to (a pull reservation) is
   * sized as if it were. A held run whose settlement is queued counts as free, a reservation whose
   * close is queued no longer reserves, an offer whose acceptance is queued takes a slot; each only
   * where the durable facts do not show it yet. Only the held-and-reserved rule uses them; every
   * zero rule stays zero.
   */
  public Capacity compute(LifecyclePhase phase, QueuedAhead ahead) {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(ahead, "ahead");
    int max = limits.maxConcurrentRuns();
    if (phase == LifecyclePhase.RECOVERY_REQUIRED) {
      return zero(Capacity.Limit.JOURNAL_RECOVERY_REQUIRED);
    }
    if (phase != LifecyclePhase.ACTIVE && phase != LifecyclePhase.REGISTERING) {
      return zero(Capacity.Limit.LIFECYCLE);
    }
    Journal.Status status = journal.status();
    if (status == Journal.Status.RECOVERY_REQUIRED) {
      return zero(Capacity.Limit.JOURNAL_RECOVERY_REQUIRED);
    }
    if (status != Journal.Status.OPEN) {
      return zero(Capacity.Limit.JOURNAL_UNUSABLE);
    }
    JournalFacts facts;
    try {
      facts = journal.facts();
    } catch (JournalException e) {
      return zero(Capacity.Limit.JOURNAL_UNUSABLE);
    }
    if (facts.recoveryRequired().isPresent()) {
      return zero(Capacity.Limit.JOURNAL_RECOVERY_REQUIRED);
    }
    if (phase == LifecyclePhase.ACTIVE
        && (facts.session().isEmpty() || facts.session().get().status() != SessionStatus.ACTIVE)) {
      return zero(Capacity.Limit.SESSION_NOT_ACTIVE);
    }
    if (journal.usableSpaceBytes() < limits.freeSpaceFloorBytes()) {
      return zero(Capacity.Limit.DISK_SPACE);
    }
    long free =
        (long) max
            - facts.heldRuns()
            + heldAmong(facts, ahead.settling())
            - facts.reservedSlots()
            + reservedBy(facts, ahead.closing())
            - (ahead.accepting().size() - heldAmong(facts, ahead.accepting()));
    int slots = (int) Math.max(0, Math.min(max, free));
    return new Capacity(slots, max, Capacity.Limit.HELD_AND_RESERVED);
  }

  private static int heldAmong(JournalFacts facts, Collection<RunKey> keys) {
    int n = 0;
    for (RunKey key : keys) {
      if (facts.holds(key)) {
        n++;
      }
    }
    return n;
  }

  private static int reservedBy(JournalFacts facts, Collection<String> pullIds) {
    int n = 0;
    for (PullReservation p : facts.openPulls()) {
      if (pullIds.contains(p.pullId())) {
        n += p.maxRuns();
      }
    }
    return n;
  }

  private Capacity zero(Capacity.Limit why) {
    return new Capacity(0, limits.maxConcurrentRuns(), why);
  }
}
