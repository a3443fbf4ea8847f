package io.ql3.worker.runtime.plane;

import io.ql3.worker.journal.RunKey;
import java.util.Collection;

/**
 * Where the plane learns how many runs a pull may ask for: in the agent, the capacity oracle over
 * the journal's durable facts.
 */
@FunctionalInterface
public interface FreeSlots {
  /**
   * The slots free for a pull whose reservation is queued in the journal behind the settlements of
   * these attempts, which may not be durable yet: the reservation becomes durable only after them,
   * and the pull leaves only then, so their slots count as free (see {@code
   * CapacityOracle#compute(LifecyclePhase, Collection)}).
   */
  int behind(Collection<RunKey> settling);
}
