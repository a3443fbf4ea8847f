package io.ql3.worker.contract;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Section 6 drift rules as pure functions: given a parsed 200 answer and what the client holds and
 * sent, accept ({@code Optional.empty()}) or return the drift. A null expectation is not checked.
 */
public final class DriftCheck {
  public static final long MIN_HEARTBEAT_INTERVAL_MS = 5_000;
  public static final long MAX_HEARTBEAT_INTERVAL_MS = 300_000;
  public static final long MIN_LEASE_TTL_MS = 15_000;
  public static final long MAX_LEASE_TTL_MS = 900_000;

  private DriftCheck() {}

  /**
   * Register: status active, version 1, H/L bounds, generation greater than {@code
   * previousGeneration} (null: none held), {@code replaced.generation} less than G.
   */
  public static Optional<Drift> register(RegisterResponse r, Long previousGeneration) {
    if (r.status() != SessionStatus.ACTIVE) {
      return drift(DriftReason.STATUS_DRIFT, "register answered status " + r.status().wire());
    }
    if (r.version() != 1) {
      return drift(
          DriftReason.VERSION_DRIFT, "register answered version " + r.version() + ", expected 1");
    }
    Optional<Drift> b = cadence(r.heartbeatIntervalMs(), r.leaseTtlMs());
    if (b.isPresent()) {
      return b;
    }
    if (previousGeneration != null && r.generation() <= previousGeneration) {
      return drift(
          DriftReason.GENERATION_DRIFT,
          "generation "
              + r.generation()
              + " is not greater than the previous generation "
              + previousGeneration);
    }
    if (r.replaced() != null && r.replaced().generation() >= r.generation()) {
      return drift(
          DriftReason.GENERATION_DRIFT,
          "replaced.generation "
              + r.replaced().generation()
              + " is not less than generation "
              + r.generation());
    }
    return Optional.empty();
  }

  /** Heartbeat: generation, version V+1 ({@code expectedVersion}), status as sent, H/L bounds. */
  public static Optional<Drift> heartbeat(
      HeartbeatResponse r,
      Long expectedGeneration,
      Long expectedVersion,
      SessionStatus requestedStatus) {
    Optional<Drift> d =
        common(
            r.generation(),
            expectedGeneration,
            r.version(),
            expectedVersion,
            r.status(),
            requestedStatus);
    return d.isPresent() ? d : cadence(r.heartbeatIntervalMs(), r.leaseTtlMs());
  }

  /**
   * Heartbeat drift against the request that was sent (generation held, version V+1, status sent).
   */
  public static Optional<Drift> heartbeat(HeartbeatResponse r, HeartbeatRequest sent) {
    return heartbeat(r, sent.generation(), sent.version() + 1, sent.status());
  }

  /**
   * Transition: generation, version V+1, status = {@code to}; offline: L = 0; draining: L in
   * 15000..900000 and L ≥ 3 × {@code lastHeartbeatIntervalMs} (null: only the range).
   */
  public static Optional<Drift> transition(
      TransitionResponse r,
      Long expectedGeneration,
      Long expectedVersion,
      SessionStatus to,
      Long lastHeartbeatIntervalMs) {
    Optional<Drift> d =
        common(r.generation(), expectedGeneration, r.version(), expectedVersion, r.status(), to);
    if (d.isPresent()) {
      return d;
    }
    long l = r.leaseTtlMs();
    if (r.status() == SessionStatus.OFFLINE) {
      return l == 0
          ? Optional.empty()
          : drift(DriftReason.BOUNDS, "leaseTtlMs " + l + " for offline, expected 0");
    }
    if (l < MIN_LEASE_TTL_MS || l > MAX_LEASE_TTL_MS) {
      return drift(
          DriftReason.BOUNDS,
          "leaseTtlMs " + l + " outside " + MIN_LEASE_TTL_MS + ".." + MAX_LEASE_TTL_MS);
    }
    if (lastHeartbeatIntervalMs != null && l < 3 * lastHeartbeatIntervalMs) {
      return drift(
          DriftReason.BOUNDS,
          "leaseTtlMs " + l + " < 3 * heartbeatIntervalMs " + lastHeartbeatIntervalMs);
    }
    return Optional.empty();
  }

  /** Transition drift against the request that was sent. */
  public static Optional<Drift> transition(
      TransitionResponse r, TransitionRequest sent, Long lastHeartbeatIntervalMs) {
    return transition(r, sent.generation(), sent.version() + 1, sent.to(), lastHeartbeatIntervalMs);
  }

  /** Pull: generation, pullId, at most {@code maxRuns} offers, unique runIds. */
  public static Optional<Drift> pull(
      PullResponse r, Long expectedGeneration, PullId pullId, Integer maxRuns) {
    if (expectedGeneration != null && r.generation() != expectedGeneration) {
      return drift(
          DriftReason.GENERATION_DRIFT,
          "generation " + r.generation() + ", held " + expectedGeneration);
    }
    if (pullId != null && !r.pullId().equals(pullId)) {
      return drift(DriftReason.PULLID_DRIFT, "pullId " + r.pullId() + ", sent " + pullId);
    }
    if (maxRuns != null && r.offers().size() > maxRuns) {
      return drift(DriftReason.TOO_MANY_OFFERS, r.offers().size() + " offers, maxRuns " + maxRuns);
    }
    Set<RunId> seen = new HashSet<>();
    for (Offer o : r.offers()) {
      if (!seen.add(o.runId())) {
        return drift(DriftReason.DUPLICATE_RUN_ID, "runId " + o.runId() + " offered twice");
      }
    }
    return Optional.empty();
  }

  /** Pull drift against the request that was sent. */
  public static Optional<Drift> pull(PullResponse r, PullRequest sent) {
    return pull(r, sent.generation(), sent.pullId(), sent.maxRuns());
  }

  /** Complete: runId and attempt of the completed run. */
  public static Optional<Drift> complete(CompleteResponse r, RunId runId, Long attempt) {
    if (runId != null && !r.runId().equals(runId)) {
      return drift(DriftReason.RUN_DRIFT, "runId " + r.runId() + ", completed " + runId);
    }
    if (attempt != null && r.attempt() != attempt) {
      return drift(DriftReason.RUN_DRIFT, "attempt " + r.attempt() + ", completed " + attempt);
    }
    return Optional.empty();
  }

  /** Heartbeat interval and lease bounds: H 5000..300000, L 15000..900000, L ≥ 3H. */
  public static Optional<Drift> cadence(long heartbeatIntervalMs, long leaseTtlMs) {
    if (heartbeatIntervalMs < MIN_HEARTBEAT_INTERVAL_MS
        || heartbeatIntervalMs > MAX_HEARTBEAT_INTERVAL_MS) {
      return drift(
          DriftReason.BOUNDS,
          "heartbeatIntervalMs "
              + heartbeatIntervalMs
              + " outside "
              + MIN_HEARTBEAT_INTERVAL_MS
              + ".."
              + MAX_HEARTBEAT_INTERVAL_MS);
    }
    if (leaseTtlMs < MIN_LEASE_TTL_MS || leaseTtlMs > MAX_LEASE_TTL_MS) {
      return drift(
          DriftReason.BOUNDS,
          "leaseTtlMs " + leaseTtlMs + " outside " + MIN_LEASE_TTL_MS + ".." + MAX_LEASE_TTL_MS);
    }
    if (leaseTtlMs < 3 * heartbeatIntervalMs) {
      return drift(
          DriftReason.BOUNDS,
          "leaseTtlMs " + leaseTtlMs + " < 3 * heartbeatIntervalMs " + heartbeatIntervalMs);
    }
    return Optional.empty();
  }

  private static Optional<Drift> common(
      long generation,
      Long expectedGeneration,
      long version,
      Long expectedVersion,
      SessionStatus status,
      SessionStatus requested) {
    if (expectedGeneration != null && generation != expectedGeneration) {
      return drift(
          DriftReason.GENERATION_DRIFT,
          "generation " + generation + ", held " + expectedGeneration);
    }
    if (expectedVersion != null && version != expectedVersion) {
      return drift(
          DriftReason.VERSION_DRIFT, "version " + version + ", expected " + expectedVersion);
    }
    if (requested != null && status != requested) {
      return drift(
          DriftReason.STATUS_DRIFT, "status " + status.wire() + ", requested " + requested.wire());
    }
    return Optional.empty();
  }

  private static Optional<Drift> drift(DriftReason reason, String detail) {
    return Optional.of(new Drift(reason, detail));
  }
}
