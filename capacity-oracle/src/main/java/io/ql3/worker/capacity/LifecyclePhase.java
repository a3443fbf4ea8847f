package io.ql3.worker.capacity;

/** Where the agent's lifecycle is, as told by the runtime (the owner of the session). */
public enum LifecyclePhase {
  /** The journal is being recovered and reconciled: nothing may be published yet. */
  RECONCILING,
  /** A register is being built: the new session is not in the journal yet. */
  REGISTERING,
  /** The session is active and usable (not fenced, lease not expired). */
  ACTIVE,
  /**
   * The session is active but takes no new work: a pull or a completion of it was refused as a
   * client bug (contract section 6: stop pulling).
   */
  PULLS_STOPPED,
  DRAINING,
  OFFLINE,
  /** The journal needs an operator. */
  RECOVERY_REQUIRED,
  /** Fenced, lease expired, credential rejected or drift: no usable session. */
  NO_USABLE_SESSION
}
