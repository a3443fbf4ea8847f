package io.ql3.worker.controlplane.state;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The table of workers and their sessions: each worker's generation counter (recorded in the {@link
 * GenerationFile} when there is one), its current, last and kept sessions, and the per-worker facts
 * the auditor needs (session requests in flight, credentials refused since the last beat). Looks up
 * and records; the rules that change a session live in {@link SessionRules} and {@link
 * SessionRequests}. Called under the {@link ControlPlane} lock only.
 */
final class SessionTable {
  private final Auditor auditor;

  /** Where generations outlive this process, or null (everything in memory). */
  private final GenerationFile generations;

  private final Map<String, Worker> workers = new HashMap<>();

  SessionTable(Auditor auditor, GenerationFile generations) {
    this.auditor = auditor;
    this.generations = generations;
  }

  /** The worker's record, created on first use (its counter from the generations file, if any). */
  Worker worker(String workerId) {
    return workers.computeIfAbsent(
        workerId,
        id -> {
          Worker w = new Worker(id);
          if (generations != null) {
            w.generation =
                generations.last(
                    id); // the next register answers one more than any earlier lifetime did
          }
          return w;
        });
  }

  /** The worker's record, or null when it never made a request. */
  Worker known(String workerId) {
    return workers.get(workerId);
  }

  Collection<Worker> all() {
    return workers.values();
  }

  void recordGeneration(Worker w) {
    if (generations != null) {
      generations.record(w.workerId, w.generation);
    }
  }

  Session session(String workerId, String sessionId) {
    Worker w = workers.get(workerId);
    return w == null ? null : w.sessions.get(sessionId);
  }

  /** A register/heartbeat/transition of this worker starts; records an overlap violation. */
  void sessionRequestStarted(String workerId, String sessionId, String operation) {
    Worker w = worker(workerId);
    if (++w.sessionRequestsInFlight > 1) {
      auditor.record(
          ViolationKind.OVERLAPPING_SESSION_REQUESTS,
          workerId,
          sessionId,
          operation
              + " while "
              + (w.sessionRequestsInFlight - 1)
              + " other session request(s) in flight");
    }
  }

  void sessionRequestEnded(String workerId) {
    Worker w = worker(workerId);
    w.sessionRequestsInFlight = Math.max(0, w.sessionRequestsInFlight - 1);
  }

  /** See {@link Worker#credentialsRefusedSinceBeat}. */
  void credentialsRefused(String workerId) {
    worker(workerId).credentialsRefusedSinceBeat = true;
  }

  /** See {@link ControlPlane#seedGeneration}. */
  void seedGeneration(String workerId, long generation) {
    Worker w = worker(workerId);
    if (!w.sessions.isEmpty() || generation < w.generation) {
      throw new IllegalStateException("worker " + workerId + " already has sessions");
    }
    w.generation = generation;
    recordGeneration(w);
  }

  List<Views.WorkerView> views(long now) {
    List<Views.WorkerView> out = new ArrayList<>();
    for (Worker w : workers.values()) {
      List<Views.SessionView> sessions = new ArrayList<>();
      for (Session s : w.sessions.values()) {
        List<String> leased = new ArrayList<>();
        for (Run r : s.leased) {
          leased.add(r.runId);
        }
        sessions.add(
            new Views.SessionView(
                s.sessionId,
                s.generation,
                s.status.wire(),
                s.fenced,
                s.statusAtFence == null ? null : s.statusAtFence.wire(),
                s.version,
                s.leaseExpiresAt,
                s.status.leased() ? Math.max(0, s.leaseExpiresAt - now) : 0,
                s.availableSlots,
                s.maxConcurrentRuns,
                s.capability.profile(),
                s.capability.executors(),
                s.capability.labels(),
                leased,
                s.registeredAt,
                s.lastBeatAt));
      }
      out.add(
          new Views.WorkerView(
              w.workerId, w.generation, w.current == null ? null : w.current.sessionId, sessions));
    }
    return out;
  }
}
