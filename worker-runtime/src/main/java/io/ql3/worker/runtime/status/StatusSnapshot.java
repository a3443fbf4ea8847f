package io.ql3.worker.runtime.status;

import java.time.Instant;

/**
 * What the running agent tells operators through its status file, rewritten atomically about once a
 * second. Holds no credential: only the certificate's days to expiry.
 *
 * @param sessionState the coordinator's state ({@code active}, {@code draining}, {@code fenced}…)
 * @param capacityLimitedBy the oracle rule that decided the published slots
 * @param lastProblem the last problem the session saw, or empty
 * @param isolation which run isolation parts are in force (docs/executors.md, "Isolation")
 */
public record StatusSnapshot(
    Instant updatedAt,
    long pid,
    String workerId,
    String profile,
    String phase,
    String sessionId,
    long generation,
    long version,
    String sessionState,
    long leaseRemainingMs,
    long heartbeatIntervalMs,
    int availableSlots,
    int maxConcurrentRuns,
    String capacityLimitedBy,
    long runsActive,
    long pendingCompletions,
    String protocol,
    int connectionsOpened,
    long certificateDaysToExpiry,
    String lastProblem,
    String isolation) {
  /** Before any session exists (e.g. waiting for credentials): only who, where and why. */
  public static StatusSnapshot beforeSession(
      Instant at, long pid, String workerId, String profile, String phase, String problem) {
    return new StatusSnapshot(
        at, pid, workerId, profile, phase, null, 0, 0, "none", 0, 0, 0, 0, "none", 0, 0, null, 0, 0,
        problem, null);
  }
}
