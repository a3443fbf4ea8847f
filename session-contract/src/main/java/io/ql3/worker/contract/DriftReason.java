package io.ql3.worker.contract;

import java.util.Locale;

/**
 * Why a well-formed 200 answer drifts from what the client holds (section 6). {@link #code()}:
 * vector reason.
 */
public enum DriftReason {
  /** heartbeatIntervalMs / leaseTtlMs outside their bounds. */
  BOUNDS,
  SCHEMA_MISMATCH,
  GENERATION_DRIFT,
  VERSION_DRIFT,
  STATUS_DRIFT,
  PULLID_DRIFT,
  TOO_MANY_OFFERS,
  DUPLICATE_RUN_ID,
  /** A complete answer for another run or attempt. */
  RUN_DRIFT,
  /** A body over its cap (reported by the transport, which never reads past cap+1 bytes). */
  OVER_CAP,
  /** A body breaking the JSON or closed-object rules: see the {@link ContractViolation}. */
  CONTRACT_VIOLATION;

  private final String code = name().toLowerCase(Locale.ROOT);

  public String code() {
    return code;
  }
}
