package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.DriftCheck;

/**
 * Server-side timing facts published to workers plus the auditor's tolerance.
 *
 * @param heartbeatIntervalMs H in register/heartbeat responses (5000..300000)
 * @param leaseTtlMs L for active sessions (15000..900000, at least 3*H)
 * @param drainingLeaseTtlMs L after a transition to draining (15000..900000, at least 3*H)
 * @param earlyToleranceMs a heartbeat earlier than H minus this after the previous one is a
 *     violation
 * @param pullIdsKept how many pullIds (with offers) each session remembers for replay
 */
public record Settings(
    long heartbeatIntervalMs,
    long leaseTtlMs,
    long drainingLeaseTtlMs,
    long earlyToleranceMs,
    int pullIdsKept) {

  /**
   * H 60 s and L 180 s (3 * H): with the edge profile's 55 s long poll an idle agent makes at most
   * about 3 requests a minute, so an idle fleet costs the control plane almost nothing.
   */
  public static Settings defaults() {
    return new Settings(60_000, 180_000, 180_000, 500, 64);
  }

  public Settings {
    if (heartbeatIntervalMs < DriftCheck.MIN_HEARTBEAT_INTERVAL_MS
        || heartbeatIntervalMs > DriftCheck.MAX_HEARTBEAT_INTERVAL_MS) {
      throw new IllegalArgumentException(
          "heartbeatIntervalMs must be in "
              + DriftCheck.MIN_HEARTBEAT_INTERVAL_MS
              + ".."
              + DriftCheck.MAX_HEARTBEAT_INTERVAL_MS);
    }
    checkLease("leaseTtlMs", leaseTtlMs, heartbeatIntervalMs);
    checkLease("drainingLeaseTtlMs", drainingLeaseTtlMs, heartbeatIntervalMs);
    if (earlyToleranceMs < 0 || pullIdsKept < 1) {
      throw new IllegalArgumentException("earlyToleranceMs >= 0 and pullIdsKept >= 1");
    }
  }

  private static void checkLease(String name, long value, long h) {
    if (value < DriftCheck.MIN_LEASE_TTL_MS
        || value > DriftCheck.MAX_LEASE_TTL_MS
        || value < 3 * h) {
      throw new IllegalArgumentException(
          name
              + " must be in "
              + DriftCheck.MIN_LEASE_TTL_MS
              + ".."
              + DriftCheck.MAX_LEASE_TTL_MS
              + " and at least 3 * heartbeatIntervalMs");
    }
  }
}
