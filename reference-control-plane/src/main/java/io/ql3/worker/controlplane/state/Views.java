package io.ql3.worker.controlplane.state;

import java.util.List;
import java.util.Map;

/** Immutable snapshots of server state for the admin API (JSON via records). */
public final class Views {
  private Views() {}

  public record LeaseView(String workerId, String sessionId, long generation, long attempt) {}

  public record RunView(
      String runId,
      String state,
      String executor,
      String specDigest,
      long timeoutMs,
      String idempotencyKey,
      String workerId,
      Map<String, String> labels,
      LeaseView lease,
      long nextAttempt,
      boolean cancelRequested,
      int reclaims,
      String outcome,
      String completedBySession,
      String completion,
      long submittedAtMs,
      long completedAtMs) {}

  public record SessionView(
      String sessionId,
      long generation,
      String status,
      boolean fenced,
      String statusAtFence,
      long version,
      long leaseExpiresAtMs,
      long leaseRemainingMs,
      int availableSlots,
      int maxConcurrentRuns,
      String profile,
      List<String> executors,
      Map<String, String> labels,
      List<String> leasedRuns,
      long registeredAtMs,
      long lastHeartbeatAtMs) {}

  public record WorkerView(
      String workerId, long generation, String currentSessionId, List<SessionView> sessions) {}

  public record SubmitResult(List<String> runIds) {}
}
