package io.ql3.worker.controlplane.state;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A run's place on the server. The latest offered attempt stays completable by its session in every
 * state but the terminal ones, until the run is offered again (contract section 5, complete).
 */
public enum RunState {
  /** Waiting in the queue (never offered, or reclaimed from a fenced/expired/offline session). */
  QUEUED,
  /** Offered to a session; covered by that session's lease. */
  LEASED,
  /** Cancelled by the admin before any session completed it; never offered again. */
  CANCELLED,
  /** A completion (succeeded, failed or cancelled) was accepted. Terminal. */
  COMPLETED,
  /** An {@code uncertain} completion was accepted: kept aside, never requeued. Terminal. */
  QUARANTINED;

  private static final Map<RunState, Set<RunState>> ALLOWED =
      Map.of(
          QUEUED, EnumSet.of(LEASED, CANCELLED, COMPLETED, QUARANTINED),
          LEASED, EnumSet.of(QUEUED, CANCELLED, COMPLETED, QUARANTINED),
          CANCELLED, EnumSet.of(COMPLETED, QUARANTINED),
          COMPLETED, EnumSet.noneOf(RunState.class),
          QUARANTINED, EnumSet.noneOf(RunState.class));

  public boolean canMoveTo(RunState next) {
    return ALLOWED.get(this).contains(next);
  }

  public boolean terminal() {
    return this == COMPLETED || this == QUARANTINED;
  }
}
