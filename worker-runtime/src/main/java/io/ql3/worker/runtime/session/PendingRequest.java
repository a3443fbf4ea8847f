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
 * the lease runs from there (section 4). A try refused unsent, or refused by the server (429/503,
 * 401/403), was not applied and does not count; the try answered 200 and a try whose outcome is
 * unknown do. It also remembers whether some try's outcome was unknown.
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
    AnswerKind kind = answer.kind();
    if ((kind == AnswerKind.SUCCESS || kind.mayHaveBeenApplied()) && leaseBase < 0) {
      leaseBase = tryAt; // the lease runs from the earliest try the server may have applied
    }
    mayHaveBeenApplied |= answer.kind().mayHaveBeenApplied();
    return answer;
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
