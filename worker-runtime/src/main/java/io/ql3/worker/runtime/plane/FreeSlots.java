package io.ql3.worker.runtime.plane;

import io.ql3.worker.capacity.QueuedAhead;

/**
 * Where the plane learns how many runs a pull may ask for: in the agent, the capacity oracle over
 * the journal's durable facts.
 */
@FunctionalInterface
public interface FreeSlots {
  /**
   * The slots free for a pull whose reservation is queued in the journal behind {@code ahead}
   * (settlements, the close of the pull just answered and its accepted offers), which may not be
   * durable yet: the reservation becomes durable only after them, and the pull leaves only then
   * (see {@code CapacityOracle#compute(LifecyclePhase, QueuedAhead)}).
   */
  int behind(QueuedAhead ahead);
}
