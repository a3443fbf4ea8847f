package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.runtime.answer.Answers;
import java.util.concurrent.CompletableFuture;

/**
 * The one session request that is not settled yet. Its record never changes, so every try sends the
 * same canonical bytes. It remembers when the earliest try the server may have applied was sent:
 * the lease runs from there (section 4; {@link #serverMayHaveApplied}). It also remembers whether
 * some try's outcome was unknown.
 */
final class PendingRequest {
  final Operation op;
  final Object request;
  final SessionId session;

  /** When the current try was handed to the transport. */
  private long tryAt;

  private long leaseBase = -1;
  private boolean mayHaveBeenApplied;
  private CompletableFuture<? extends Answer<?>> future;

  PendingRequest(Operation op, Object request, SessionId session) {
    if (op != Operation.REGISTER && op != Operation.HEARTBEAT && op != Operation.TRANSITION) {
      throw new IllegalArgumentException("not a session operation: " + op);
    }
    this.op = op;
    this.request = request;
    this.session = session;
  }

  /** A try is on the wire (sent, answer not taken yet). */
  boolean onTheWire() {
    return future != null;
  }

  /** Hands one try to the transport; {@code wake} runs (on any thread) when it is answered. */
  void send(SessionCoordinator.IngressClient client, long now, Runnable wake) {
    tryAt = now;
    CompletableFuture<? extends Answer<?>> f =
        switch (op) {
          case REGISTER -> client.register(session, (RegisterRequest) request);
          case HEARTBEAT -> client.heartbeat(session, (HeartbeatRequest) request);
          case TRANSITION -> client.transition(session, (TransitionRequest) request);
          case PULL, COMPLETE -> throw new IllegalStateException("not a session operation: " + op);
        };
    future = f;
    f.whenComplete((r, e) -> wake.run());
  }

  /**
   * The answer of the try on the wire once it arrived (the try is then over), else null. A future
   * that failed is a handled answer ({@link Answers#of}), never an exception.
   */
  Answer<?> takeAnswer() {
    if (future == null || !future.isDone()) {
      return null;
    }
    @SuppressWarnings("unchecked")
    Answer<Object> answer = Answers.of((CompletableFuture<Answer<Object>>) future);
    future = null;
    if (leaseBase < 0 && serverMayHaveApplied(answer)) {
      leaseBase = tryAt; // the lease runs from the earliest try the server may have applied
    }
    mayHaveBeenApplied |= answer.kind().mayHaveBeenApplied();
    return answer;
  }

  /**
   * The try this answer is for may have been applied: a 200, an unknown outcome, or a 429/503 that
   * is not the server's own contract error (a proxy's page: the proxy may have forwarded the
   * request before it answered). The server's own {@code rate_limited}/{@code unavailable}, a
   * credential refusal and a try never sent were not.
   */
  private static boolean serverMayHaveApplied(Answer<?> answer) {
    AnswerKind kind = answer.kind();
    return kind == AnswerKind.SUCCESS
        || kind.mayHaveBeenApplied()
        || kind == AnswerKind.TRANSIENT
            && answer instanceof Answer.Refusal<?> r
            && r.code() == null;
  }

  /** When the earliest try the server may have applied was sent, or -1. */
  long leaseBase() {
    return leaseBase;
  }

  /** Some try's outcome was unknown: the server may have applied it. */
  boolean mayHaveBeenApplied() {
    return mayHaveBeenApplied;
  }
}
