package io.ql3.worker.controlplane.state;

import java.util.List;
import java.util.Map;

/**
 * The facts of a parsed, valid request that the state machine needs. The ingress parses wire bytes
 * with the session-contract module and hands these over together with the exact request bytes (for
 * replay).
 */
public final class Commands {
  private Commands() {}

  public record Register(
      String profile,
      int availableSlots,
      int maxConcurrentRuns,
      List<String> executors,
      Map<String, String> labels,
      int maxSpecBytes,
      int pullPage) {}

  public record Heartbeat(
      long generation,
      long version,
      SessionStatus status,
      int availableSlots,
      int maxConcurrentRuns) {}

  public record Transition(
      long generation, long version, SessionStatus from, SessionStatus to, int maxConcurrentRuns) {}

  public record Pull(long generation, int maxRuns, String pullId, long waitMs) {}

  public record Complete(long attempt, long generation, String outcome) {}
}
