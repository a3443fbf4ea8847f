package io.ql3.worker.controlplane.state;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The server's record of one worker session. Mutable; guarded by the {@link ControlPlane} lock. */
final class Session {
  record PulledRun(Run run, long attempt) {}

  final String workerId;
  final String sessionId;
  final long generation;
  final byte[] registerBytes;
  final byte[] registerResponse;
  final Commands.Register capability;
  final long registeredAt;

  SessionStatus status = SessionStatus.ACTIVE;
  boolean fenced;

  /** The status the session had when it was fenced (the {@code replaced.status} fact). */
  SessionStatus statusAtFence;

  long version = 1;
  long leaseExpiresAt;
  long heartbeatIntervalMs;
  int availableSlots;
  int maxConcurrentRuns;
  long lastBeatAt;

  /** When the server first answered this session with a 409 (-1: never). */
  long first409At = -1;

  String lastOperation;
  byte[] lastRequest;
  byte[] lastResponse;
  int cancelCursor;
  final Set<Run> leased = new LinkedHashSet<>();
  final Map<String, List<PulledRun>> pulls = new LinkedHashMap<>();

  Session(
      String workerId,
      String sessionId,
      long generation,
      byte[] registerBytes,
      byte[] registerResponse,
      Commands.Register capability,
      long now) {
    this.workerId = workerId;
    this.sessionId = sessionId;
    this.generation = generation;
    this.registerBytes = registerBytes;
    this.registerResponse = registerResponse;
    this.capability = capability;
    this.registeredAt = now;
    this.lastBeatAt = now;
    this.availableSlots = capability.availableSlots();
    this.maxConcurrentRuns = capability.maxConcurrentRuns();
  }

  void moveTo(SessionStatus next) {
    if (!status.canMoveTo(next)) {
      throw new IllegalStateException(
          "session " + sessionId + ": " + status + " -> " + next + " is not allowed");
    }
    status = next;
  }

  void rememberPull(String pullId, List<PulledRun> offered, int kept) {
    pulls.put(pullId, new ArrayList<>(offered));
    while (pulls.size() > kept) {
      pulls.remove(pulls.keySet().iterator().next());
    }
  }
}
