package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.runtime.answer.Reaction;
import io.ql3.worker.runtime.answer.Reactions;
import java.util.Optional;

/**
 * Applies the answer of the pending session request (register, heartbeat or transition) as {@link
 * Reactions}' table says. A 200 answer is drift-checked before anything of it is used; the lease
 * runs from the send time of the earliest try the server may have applied; the record of a try that
 * may have been applied is kept (same bytes) until that operation gets a definite answer, a
 * credential refusal included. An answer for a session that ended meanwhile changes nothing.
 */
final class SessionAnswerHandler {
  private final CurrentSession s;
  private final SessionTimers timers;

  SessionAnswerHandler(CurrentSession facts) {
    this.s = facts;
    this.timers = facts.timers;
  }

  /** Applies the pending request's answer if it arrived; nothing otherwise. */
  void harvest(long now) {
    PendingRequest o = s.pending;
    if (o == null) {
      return;
    }
    Answer<?> answer = o.takeAnswer();
    if (answer == null) {
      return;
    }
    Reaction reaction = Reactions.of(o.op, answer.kind());
    switch (o.op) {
      case REGISTER -> onRegister(now, o, reaction, answer);
      case HEARTBEAT -> onHeartbeat(now, o, reaction, answer);
      case TRANSITION -> onTransition(now, o, reaction, answer);
      case PULL, COMPLETE -> throw new IllegalStateException("not a session operation: " + o.op);
    }
  }

  private void onRegister(long now, PendingRequest o, Reaction reaction, Answer<?> answer) {
    if (s.state != SessionState.REGISTERING) {
      s.pending = null; // ended meanwhile; nothing to apply
      return;
    }
    switch (reaction) {
      case APPLY -> {
        RegisterResponse resp = (RegisterResponse) ((Answer.Success<?>) answer).value();
        Optional<Drift> drift = DriftCheck.register(resp, s.highestGeneration);
        s.pending = null;
        if (drift.isPresent()) {
          s.drifted(drift.get());
          return;
        }
        s.credentialsRefused = false;
        s.pullsStopped = false;
        timers.serverWaitOver();
        s.generation = resp.generation();
        s.highestGeneration = s.generation;
        s.version = resp.version();
        s.heartbeatIntervalMs = resp.heartbeatIntervalMs();
        timers.leaseFrom(o.leaseBase(), resp.leaseTtlMs());
        timers.heartbeatAfter(now, s.heartbeatIntervalMs);
        s.listener.registered(s.sessionId, s.generation);
        s.move(
            SessionState.ACTIVE,
            "registered generation "
                + s.generation
                + resp.replacedSession()
                    .map(p -> ", fenced previous session " + p.sessionId().value())
                    .orElse(""));
      }
      case RESEND -> {
        if (s.drainRequested) {
          s.abandonRegister();
        } else {
          retryLater(now, answer, o.op);
        }
      }
      case REGISTER_AGAIN -> {
        // This sessionId cannot be used (session_conflict, refused credentials, a client bug, a
        // drifting answer): a later register takes a new one.
        s.pending = null;
        s.lastProblem = "register refused: " + answer;
        timers.backOff(now);
        s.move(SessionState.NONE, s.lastProblem);
      }
      case SUSPEND,
          FENCE,
          REPLAN_FOR_HTTP1,
          SETTLE_SUPERSEDED,
          SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING,
          STOP_PULLING,
          RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no register reaction " + reaction);
    }
  }

  private void onHeartbeat(long now, PendingRequest o, Reaction reaction, Answer<?> answer) {
    HeartbeatRequest sent = (HeartbeatRequest) o.request;
    if (!s.state.isLive()) {
      s.pending = null; // expired or fenced meanwhile: the answer changes nothing
      return;
    }
    switch (reaction) {
      case APPLY -> {
        HeartbeatResponse resp = (HeartbeatResponse) ((Answer.Success<?>) answer).value();
        s.pending = null;
        Optional<Drift> drift = DriftCheck.heartbeat(resp, sent);
        if (drift.isPresent()) {
          s.drifted(drift.get());
          return;
        }
        accepted();
        s.version = resp.version();
        s.heartbeatIntervalMs = resp.heartbeatIntervalMs();
        timers.leaseFrom(o.leaseBase(), resp.leaseTtlMs());
        timers.heartbeatAfter(now, s.heartbeatIntervalMs);
        timers.heartbeatAccepted(o.leaseBase());
        if (s.state == SessionState.SUSPENDED) {
          s.move(SessionState.ACTIVE, "heartbeat accepted again");
        }
        if (!resp.cancelRuns().isEmpty()) {
          s.listener.cancelRequested(resp.cancelRuns());
        }
        if (resp.workAvailable()) {
          s.listener.workAvailable();
        }
      }
      case SUSPEND -> {
        suspend(now, o, answer);
        if (s.state == SessionState.ACTIVE) {
          s.move(SessionState.SUSPENDED, "credentials rejected: heartbeat: " + answer);
        } else {
          s.listener.requestFailed("heartbeat", answer.toString());
        }
      }
      case RESEND -> retryLater(now, answer, o.op);
      case FENCE -> fenceBy(o.op, answer);
      case REGISTER_AGAIN,
          REPLAN_FOR_HTTP1,
          SETTLE_SUPERSEDED,
          SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING,
          STOP_PULLING,
          RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no heartbeat reaction " + reaction);
    }
  }

  private void onTransition(long now, PendingRequest o, Reaction reaction, Answer<?> answer) {
    TransitionRequest sent = (TransitionRequest) o.request;
    if (!s.state.isLive()) {
      s.pending = null;
      return;
    }
    switch (reaction) {
      case APPLY -> {
        TransitionResponse resp = (TransitionResponse) ((Answer.Success<?>) answer).value();
        s.pending = null;
        Optional<Drift> drift = DriftCheck.transition(resp, sent, s.heartbeatIntervalMs);
        if (drift.isPresent()) {
          s.drifted(drift.get());
          return;
        }
        accepted();
        s.version = resp.version();
        if (resp.status() == SessionStatus.DRAINING) {
          timers.leaseFrom(o.leaseBase(), resp.leaseTtlMs());
          timers.heartbeatAfter(now, s.heartbeatIntervalMs);
          s.move(SessionState.DRAINING, "draining with 0 capacity");
        } else {
          s.move(SessionState.OFFLINE, "offline");
        }
      }
      case RESEND -> retryLater(now, answer, o.op);
      case SUSPEND -> {
        suspend(now, o, answer);
        s.listener.requestFailed("transition", answer.toString());
      }
      case FENCE -> fenceBy(o.op, answer);
      case REGISTER_AGAIN,
          REPLAN_FOR_HTTP1,
          SETTLE_SUPERSEDED,
          SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING,
          STOP_PULLING,
          RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no transition reaction " + reaction);
    }
  }

  /** An accepted heartbeat or transition: the session is healthy again; a server's wait is over. */
  private void accepted() {
    timers.accepted();
    s.credentialsRefused = false;
  }

  /**
   * Credentials refused: try again at the next due time (at once when a credential file changes). A
   * record some earlier try of which may have been applied is kept, so the retry sends its
   * identical bytes; otherwise it is built afresh then.
   */
  private void suspend(long now, PendingRequest o, Answer<?> answer) {
    s.lastProblem = o.op.wireName() + ": " + answer;
    s.credentialsRefused = true;
    long due = now + s.heartbeatIntervalMs * SessionTimers.NANOS_PER_MS;
    timers.heartbeatAfter(now, s.heartbeatIntervalMs);
    if (o.mayHaveBeenApplied()) {
      timers.notBefore(due);
    } else {
      s.pending = null;
      if (o.op == Operation.TRANSITION) {
        timers.notBefore(due);
      }
    }
  }

  private void fenceBy(Operation op, Answer<?> answer) {
    s.pending = null;
    if (answer instanceof Answer.Refusal<?> r && r.kind() == AnswerKind.DRIFT) {
      s.drifted(r.drift());
      return;
    }
    s.lastProblem = op.wireName() + ": " + answer;
    s.move(
        SessionState.FENCED,
        answer.kind() == AnswerKind.FENCED
            ? "fenced by the server: " + s.lastProblem
            : "refused as a client bug, failing closed: " + s.lastProblem);
  }

  /**
   * Keeps the pending record for a byte-identical resend after a backoff (or the capped
   * retry-after).
   */
  private void retryLater(long now, Answer<?> answer, Operation op) {
    long delay = timers.nextBackoffNanos();
    if (answer.retryAfter().isPresent()) {
      long wait =
          Reactions.cappedRetryAfter(op, answer.retryAfter().get(), s.heartbeatIntervalMs)
              .toNanos();
      delay = Math.max(delay, wait);
      timers.serverAskedToWait(now, wait);
    }
    timers.notBefore(now + delay);
    s.lastProblem = op.wireName() + ": " + answer;
    s.listener.requestFailed(op.wireName(), answer.toString());
  }
}
