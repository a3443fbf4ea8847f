package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.RunCounts;

/** What the coordinator publishes but does not own: capacity (from the oracle) and run counts. */
public interface SessionInputs {
  /**
   * Slots to publish now, as computed by the capacity oracle from the journal (never a configured
   * number). Called only for an active session's register or heartbeat.
   */
  int availableSlots();

  /** Runs held by the execution plane: active, and results waiting for delivery. */
  RunCounts runCounts();
}
