package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.runtime.answer.Reactions;
import io.ql3.worker.transport.Backoff;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * The worker session, driven by the caller: it owns no timer and no thread (contract section 7,
 * rule 3). The cadence calls {@link #tick(long)}; shutdown calls {@link #beginDrain()} and, once
 * the execution plane has proven every run settled, {@link #disconnect(long)}.
 *
 * <p>At most one session request (register, heartbeat or transition) is outstanding at any time. A
 * request whose outcome is unknown (or that was not sent, or answered 429/503) is tried again with
 * the very same record, so its canonical bytes are identical, before anything new is sent.
 * Heartbeats are sent only when due ({@code heartbeatIntervalMs} after the last answer). The lease
 * deadline is the monotonic time the earliest try the server may have applied was sent ({@link
 * PendingRequest} owns the rule) plus {@code leaseTtlMs}: a conservative local copy of the server's
 * lease; past it the session is {@link SessionState#EXPIRED}. What each answer does is {@link
 * Reactions}' table; the record of a try that may have been applied is kept (same bytes) until that
 * operation gets a definite answer, a credential refusal included.
 *
 * <p>The parts, each with one job: {@link RequestPlanner} decides the next request, {@link
 * PendingRequest} holds it (same record, same bytes) until it is settled, {@link
 * SessionAnswerHandler} applies its answer, {@link SessionTimers} holds every wait and {@link
 * CurrentSession} the session's values and its checked state moves. This class is the API over them
 * and what execution answers do to the session.
 *
 * <p>Thread confinement: every method runs on the cadence thread. Transport futures complete on the
 * transport thread; they only wake the cadence, and their results are applied in the next tick.
 */
public final class SessionCoordinator {
  private final IngressClient client;
  private final Runnable wake;
  private final SessionTimers timers;
  private final CurrentSession s;
  private final RequestPlanner planner;
  private final SessionAnswerHandler answers;

  /** The three session operations of the ingress client; the seam the coordinator is tested at. */
  public interface IngressClient {
    CompletableFuture<Answer<RegisterResponse>> register(
        SessionId session, RegisterRequest request);

    CompletableFuture<Answer<HeartbeatResponse>> heartbeat(
        SessionId session, HeartbeatRequest request);

    CompletableFuture<Answer<TransitionResponse>> transition(
        SessionId session, TransitionRequest request);

    /** Adapts the transport's client, counting and timing every call. */
    static IngressClient of(
        io.ql3.worker.transport.IngressClient c, io.ql3.worker.runtime.metrics.TimedCalls timed) {
      return new IngressClient() {
        @Override
        public CompletableFuture<Answer<RegisterResponse>> register(
            SessionId s, RegisterRequest r) {
          return timed.time("register", () -> c.register(s, r));
        }

        @Override
        public CompletableFuture<Answer<HeartbeatResponse>> heartbeat(
            SessionId s, HeartbeatRequest r) {
          return timed.time("heartbeat", () -> c.heartbeat(s, r));
        }

        @Override
        public CompletableFuture<Answer<TransitionResponse>> transition(
            SessionId s, TransitionRequest r) {
          return timed.time("transition", () -> c.transition(s, r));
        }
      };
    }
  }

  /**
   * @param wake called (from any thread) when an answer arrived, so the cadence ticks soon
   * @param retryBase first retry delay after a transient failure
   * @param retryMax longest retry delay
   */
  public SessionCoordinator(
      IngressClient client,
      Capability capability,
      SessionInputs inputs,
      SessionListener listener,
      Uuid7Generator ids,
      Runnable wake,
      Duration retryBase,
      Duration retryMax,
      RandomGenerator random) {
    this.client = Objects.requireNonNull(client);
    this.wake = Objects.requireNonNull(wake);
    this.timers = new SessionTimers(new Backoff(retryBase, retryMax, random::nextDouble));
    this.s = new CurrentSession(Objects.requireNonNull(listener), timers);
    this.planner =
        new RequestPlanner(
            Objects.requireNonNull(capability),
            Objects.requireNonNull(inputs),
            Objects.requireNonNull(ids),
            s);
    this.answers = new SessionAnswerHandler(s);
  }

  // ------------------------------------------------------------------ operations

  /**
   * Registers a new session (a fresh UUIDv7) with the canonical capability and the oracle's
   * capacity. Allowed with no session, or after the previous one ended (fenced or expired) AND the
   * caller has settled every run of it: the coordinator cannot see runs, the caller must.
   */
  public void register(long now) {
    if (s.state == SessionState.REGISTERING || s.registerRequested) {
      return; // already on its way
    }
    if (s.state != SessionState.NONE
        && s.state != SessionState.FENCED
        && s.state != SessionState.EXPIRED) {
      throw new IllegalStateException("register in state " + s.state);
    }
    if (s.drainRequested) {
      throw new IllegalStateException("register after drain began");
    }
    // Sent by the next send step: a request of the old session may still be on the wire.
    s.lastNow = now;
    s.registerRequested = true;
    sendIfAllowed(now);
  }

  /**
   * One step: apply an answer that arrived, expire the lease if it passed, then send at most one
   * request (a resend first, then a transition asked for, then a heartbeat when due).
   */
  public void tick(long now) {
    s.lastNow = now;
    answers.harvest(now);
    s.expireIfPast(now);
    sendIfAllowed(now);
  }

  /**
   * Starts draining: the next request is {@code active → draining} with 0 capacity. Pulls stop at
   * once ({@link #pullPermit(long)} is empty from now on). Idempotent. Shutdown while registering
   * with the register not on the wire ends at once: no session is held, nothing to drain. A
   * register on the wire is awaited (its deadline bounds it): an answer that registers the session
   * is drained and taken offline as usual.
   */
  public void beginDrain() {
    s.drainRequested = true;
    s.registerRequested = false;
    if (s.state == SessionState.REGISTERING && s.pending != null && !s.pending.onTheWire()) {
      s.abandonRegister();
    }
  }

  /**
   * Ends the session: {@code draining → offline} (or {@code active → offline}), sent at once unless
   * a session request is on the wire (then by the step that harvests its answer) or a backoff or
   * retry-after holds it: it is asked for after this step's {@link #tick}, and nothing else would
   * wake the cadence before its next period. Call only when the execution plane has proven that
   * every run is settled. Idempotent.
   */
  public void disconnect(long now) {
    s.drainRequested = true;
    s.offlineRequested = true;
    s.lastNow = now;
    sendIfAllowed(now);
  }

  /**
   * The highest generation this worker held before this process started (from the journal): a
   * register answer must be greater (section 6), even right after a restart.
   */
  public void generationHeldBefore(long generation) {
    if (s.highestGeneration == null || generation > s.highestGeneration) {
      s.highestGeneration = generation;
    }
  }

  /**
   * A credential file changed: a session whose credentials were refused (suspended, or draining)
   * retries at once (section 6), and so does a register refused for its credentials. A server's
   * retry-after is still honoured (section 6: 429/503).
   */
  public void credentialsChanged() {
    if (s.credentialsRefused || s.state == SessionState.NONE) {
      timers.retryAtOnce();
    }
  }

  /**
   * What an execution answer (pull or complete) does to the session, by {@link Reactions}' table: a
   * fence or a drift ends it, a credential refusal suspends pulling while heartbeats go on, a pull
   * or a completion refused as a client bug stops pulling for the rest of the session.
   */
  public void executionAnswered(Operation op, Answer<?> answer) {
    if (!s.state.isLive()) {
      return;
    }
    String what = op.wireName() + ": " + answer;
    switch (Reactions.of(op, answer.kind())) {
      case FENCE -> {
        s.lastProblem = what;
        if (answer instanceof Answer.Refusal<?> r && r.kind() == AnswerKind.DRIFT) {
          s.listener.drifted(r.drift());
        }
        s.move(
            SessionState.FENCED,
            answer.kind() == AnswerKind.FENCED
                ? "fenced by the server: " + what
                : "failing closed: " + what);
      }
      case RESEND_AND_FAIL_CLOSED -> {
        s.lastProblem = "failing closed: " + what;
        if (answer instanceof Answer.Refusal<?> r) {
          s.listener.drifted(r.drift());
        }
        s.move(SessionState.FENCED, s.lastProblem);
      }
      case SUSPEND -> {
        s.lastProblem = what;
        s.credentialsRefused = true;
        if (s.state == SessionState.ACTIVE) {
          s.move(SessionState.SUSPENDED, "credentials rejected: " + what);
        }
      }
      case STOP_PULLING, SETTLE_UNDELIVERABLE_STOP_PULLING -> {
        s.lastProblem = "pulling stopped: " + what;
        s.pullsStopped = true;
      }
      case APPLY,
          RESEND,
          REGISTER_AGAIN,
          REPLAN_FOR_HTTP1,
          SETTLE_SUPERSEDED,
          SETTLE_UNDELIVERABLE -> {
        // the session is not concerned
      }
    }
  }

  /**
   * The execution plane can no longer know which runs this session holds (a lost long-poll answer
   * that can only be replayed on h2, see {@code ExecutionPlane}): stop pulling and never heartbeat
   * it again, like a fence; the next register (once every run is settled) fences it on the server,
   * which reclaims its runs.
   */
  public void failClosed(String why) {
    if (!s.state.isLive()) {
      return;
    }
    s.lastProblem = why;
    s.move(SessionState.FENCED, why);
  }

  /** A pull answer drifted: fail closed, the session is treated as fenced (section 6). */
  public void drifted(Drift drift) {
    if (!s.state.isLive()) {
      return;
    }
    s.drifted(drift);
  }

  /**
   * The monotonic clock missed {@code lostNanos} (a suspend; {@link
   * io.ql3.worker.runtime.cadence.ClockGapDetector}): the server's lease ran that much more than
   * ours. The local lease deadline moves that much earlier (past it the session expires as usual),
   * a heartbeat is due at once, and pulls wait until a heartbeat sent from now on is accepted.
   */
  public void clockGap(long lostNanos, long now) {
    if (!s.state.isLive()) {
      return;
    }
    timers.clockGap(lostNanos, now);
    s.lastProblem =
        "the monotonic clock missed "
            + lostNanos / SessionTimers.NANOS_PER_MS
            + " ms (suspended?): lease re-validated";
    s.expireIfPast(now);
  }

  // ------------------------------------------------------------------ queries

  public SessionState state() {
    return s.state;
  }

  /**
   * The session pulls run under, when pulling is allowed now: active, lease valid, not draining.
   */
  public Optional<SessionLease> pullPermit(long now) {
    if (s.state != SessionState.ACTIVE
        || s.drainRequested
        || s.pullsStopped
        || timers.leasePassed(now)
        || timers.leaseUnconfirmed()) {
      return Optional.empty();
    }
    return Optional.of(new SessionLease(s.sessionId, s.generation));
  }

  /** True when a pull or completion of this session was refused as a client bug: no more pulls. */
  public boolean pullsStopped() {
    return s.pullsStopped;
  }

  /** The current or last session id; empty before the first register. */
  public Optional<SessionId> sessionId() {
    return Optional.ofNullable(s.sessionId);
  }

  public long generation() {
    return s.generation;
  }

  public long version() {
    return s.version;
  }

  /** The last heartbeat interval the server gave, in ms (0 before the first answer). */
  public long heartbeatIntervalMs() {
    return s.heartbeatIntervalMs;
  }

  /** Time left on the local lease, or zero when no live session. */
  public Duration leaseRemaining(long now) {
    if (!s.state.isLive()) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(timers.leaseRemainingNanos(now));
  }

  /** True when a session request is on the wire or waiting to be resent. */
  public boolean requestOutstanding() {
    return s.pending != null;
  }

  public boolean drainRequested() {
    return s.drainRequested;
  }

  /** The last problem seen (for status), or empty. */
  public String lastProblem() {
    return s.lastProblem;
  }

  // ------------------------------------------------------------------ internals

  /** Sends the pending request again, or the planner's next one: never two on the wire. */
  private void sendIfAllowed(long now) {
    if (s.pending != null && s.pending.onTheWire()) {
      return; // on the wire: never two session requests at once
    }
    if (!timers.mayRequest(now)) {
      return; // backing off after a failure, or the server asked us to wait
    }
    if (s.pending == null) {
      s.pending = planner.next(now);
      if (s.pending == null) {
        return;
      }
    }
    s.pending.send(client, now, wake);
  }
}
