package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.Uuid7Generator;

/**
 * Decides the next session request when none is pending, in this order: a register asked for, a
 * transition that shutdown needs (always through {@code draining}, then {@code offline}), a
 * heartbeat when due. Capacity is published only as the oracle computes it, clamped to the
 * capability's limit, and 0 while draining or once pulls stopped.
 */
final class RequestPlanner {
  private final Capability capability;
  private final SessionInputs inputs;
  private final Uuid7Generator ids;
  private final CurrentSession s;

  RequestPlanner(
      Capability capability, SessionInputs inputs, Uuid7Generator ids, CurrentSession facts) {
    this.capability = capability;
    this.inputs = inputs;
    this.ids = ids;
    this.s = facts;
  }

  /** What to send next when nothing is pending, or null. A register starts a new session id. */
  PendingRequest next(long now) {
    if (s.registerRequested) {
      s.registerRequested = false;
      SessionId next = ids.nextSessionId();
      s.sessionId = next;
      s.version = 0;
      // REGISTERING first: the oracle publishes slots only for a registering or active session.
      s.move(SessionState.REGISTERING, "registering session " + next.value());
      RegisterRequest request = RegisterRequest.of(capability, clampSlots(inputs.availableSlots()));
      return new PendingRequest(Operation.REGISTER, request, next);
    }
    SessionState state = s.state;
    if (!state.isLive()) {
      return null;
    }
    int max = capability.limits().maxConcurrentRuns();
    if (s.offlineRequested
        && (state == SessionState.DRAINING
            || state == SessionState.ACTIVE
            || state == SessionState.SUSPENDED)) {
      if (state != SessionState.DRAINING) {
        // Always go through draining: it tells the server to stop offering before we leave.
        return transition(SessionStatus.ACTIVE, SessionStatus.DRAINING, max);
      }
      return transition(SessionStatus.DRAINING, SessionStatus.OFFLINE, max);
    }
    if (s.drainRequested && (state == SessionState.ACTIVE || state == SessionState.SUSPENDED)) {
      return transition(SessionStatus.ACTIVE, SessionStatus.DRAINING, max);
    }
    if (s.timers.heartbeatDue(now)) {
      boolean draining = state == SessionState.DRAINING;
      // No slots while draining, nor once pulls stopped for a client bug: never advertise capacity
      // this session will not pull.
      int slots =
          draining || s.drainRequested || s.pullsStopped ? 0 : clampSlots(inputs.availableSlots());
      RunCounts runs = inputs.runCounts();
      HeartbeatRequest hb =
          new HeartbeatRequest(
              new Capacity(slots, max),
              s.generation,
              runs,
              draining ? SessionStatus.DRAINING : SessionStatus.ACTIVE,
              s.version);
      return new PendingRequest(Operation.HEARTBEAT, hb, s.sessionId);
    }
    return null;
  }

  private PendingRequest transition(SessionStatus from, SessionStatus to, int max) {
    TransitionRequest t =
        new TransitionRequest(new Capacity(0, max), from, s.generation, to, s.version);
    return new PendingRequest(Operation.TRANSITION, t, s.sessionId);
  }

  private int clampSlots(int slots) {
    return Math.max(0, Math.min(slots, capability.limits().maxConcurrentRuns()));
  }
}
