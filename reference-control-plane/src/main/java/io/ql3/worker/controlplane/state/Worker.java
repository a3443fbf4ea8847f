package io.ql3.worker.controlplane.state;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Per worker: the generation counter and its sessions. Guarded by the {@link ControlPlane} lock.
 */
final class Worker {
  static final int SESSIONS_KEPT = 16;

  final String workerId;
  long generation;

  /** The session of the current generation, or null (none yet, or fenced by the admin). */
  Session current;

  /** The most recent session (the {@code replaced} fact of the next register). */
  Session last;

  final Map<String, Session> sessions = new LinkedHashMap<>();

  /**
   * Every sessionId ever registered here: a sessionId is never reused, even after its record is
   * dropped.
   */
  final Set<String> sessionIdsSeen = new HashSet<>();

  int sessionRequestsInFlight;

  /**
   * The server refused this worker's credentials since its last accepted heartbeat: the contract
   * (section 6) lets the client retry a heartbeat at once when a credential file changes, so the
   * next heartbeat is not audited as early.
   */
  boolean credentialsRefusedSinceBeat;

  Worker(String workerId) {
    this.workerId = workerId;
  }

  void add(Session s) {
    sessions.put(s.sessionId, s);
    sessionIdsSeen.add(s.sessionId);
    while (sessions.size() > SESSIONS_KEPT) {
      sessions.remove(sessions.keySet().iterator().next());
    }
  }
}
