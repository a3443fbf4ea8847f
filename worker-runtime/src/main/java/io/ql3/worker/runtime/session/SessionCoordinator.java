package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.runtime.answer.Answers;
import io.ql3.worker.runtime.answer.Reaction;
import io.ql3.worker.runtime.answer.Reactions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.transport.Backoff;
import java.util.random.RandomGenerator;

/**
 * The worker session, driven by the caller: it owns no timer and no thread (contract section 7,
 * rule 3). The cadence calls {@link #tick(long)}; shutdown calls {@link #beginDrain()} and, once
 * the execution plane has proven every run settled, {@link #disconnect()}.
 *
 * <p>At most one session request (register, heartbeat or transition) is outstanding at any time.
 * A request whose outcome is unknown (or that was not sent, or answered 429/503) is tried again
 * with the very same record, so its canonical bytes are identical, before anything new is sent.
 * Heartbeats are sent only when due ({@code heartbeatIntervalMs} after the last answer). The lease
 * deadline is the monotonic time the earliest try that may have reached the server was sent (a
 * try refused unsent does not count) plus {@code leaseTtlMs}: a conservative local copy of the
 * server's lease; past it the session is {@link SessionState#EXPIRED}. What each answer does is
 * {@link Reactions}' table; the record of a try that may have been applied is kept (same bytes)
 * until that operation gets a definite answer, a credential refusal included.
 *
 * <p>Thread confinement: every method runs on the cadence thread. Transport futures complete on
 * the transport thread; they only wake the cadence, and their results are applied in the next tick.
 */
public final class SessionCoordinator {
  private static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final IngressClient client;
  private final Capability capability;
  private final SessionInputs inputs;
  private final SessionListener listener;
  private final Uuid7Generator ids;
  private final Runnable wake;
  private final Backoff retry;

  private SessionState state = SessionState.NONE;
  private SessionId sessionId;
  private long generation;
  private long version;
  private Long highestGeneration;
  private long heartbeatIntervalMs;
  private final Deadline leaseDeadline = new Deadline();
  private final Deadline nextHeartbeatAt = new Deadline();
  private final Deadline notBefore = new Deadline();
  /** A server's retry-after (429/503): no session request before it, whatever else happens. */
  private final Deadline retryAfterUntil = new Deadline();
  /** Set by {@link #clockGap}: no pull until a heartbeat sent at or after it is accepted. */
  private final Deadline leaseToConfirmFrom = new Deadline();
  private Outstanding outstanding;
  private boolean registerRequested;
  /** Our credentials were refused since the last accepted session request. */
  private boolean credentialsRefused;
  /** A completion of this session was refused as a client bug: no more pulls under it (section 6). */
  private boolean pullsStopped;
  /** The time of the latest step or operation (for backoffs decided outside a step). */
  private long lastNow;
  private boolean drainRequested;
  private boolean offlineRequested;
  private String lastProblem = "";

  /** The three session operations of the ingress client; the seam the coordinator is tested at. */
  public interface IngressClient {
    CompletableFuture<Answer<RegisterResponse>> register(SessionId session, RegisterRequest request);

    CompletableFuture<Answer<HeartbeatResponse>> heartbeat(SessionId session, HeartbeatRequest request);

    CompletableFuture<Answer<TransitionResponse>> transition(SessionId session, TransitionRequest request);

    /** Adapts the transport's client, counting and timing every call. */
    static IngressClient of(io.ql3.worker.transport.IngressClient c, io.ql3.worker.runtime.metrics.TimedCalls timed) {
      return new IngressClient() {
        @Override
        public CompletableFuture<Answer<RegisterResponse>> register(SessionId s, RegisterRequest r) {
          return timed.time("register", () -> c.register(s, r));
        }

        @Override
        public CompletableFuture<Answer<HeartbeatResponse>> heartbeat(SessionId s, HeartbeatRequest r) {
          return timed.time("heartbeat", () -> c.heartbeat(s, r));
        }

        @Override
        public CompletableFuture<Answer<TransitionResponse>> transition(SessionId s, TransitionRequest r) {
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
    this.capability = Objects.requireNonNull(capability);
    this.inputs = Objects.requireNonNull(inputs);
    this.listener = Objects.requireNonNull(listener);
    this.ids = Objects.requireNonNull(ids);
    this.wake = Objects.requireNonNull(wake);
    this.retry = new Backoff(retryBase, retryMax, random::nextDouble);
  }

  // ------------------------------------------------------------------ operations

  /**
   * Registers a new session (a fresh UUIDv7) with the canonical capability and the oracle's
   * capacity. Allowed with no session, or after the previous one ended (fenced or expired) AND
   * the caller has settled every run of it: the coordinator cannot see runs, the caller must.
   */
  public void register(long now) {
    if (state == SessionState.REGISTERING || registerRequested) {
      return; // already on its way
    }
    if (state != SessionState.NONE && state != SessionState.FENCED && state != SessionState.EXPIRED) {
      throw new IllegalStateException("register in state " + state);
    }
    if (drainRequested) {
      throw new IllegalStateException("register after drain began");
    }
    // Sent by the next send step: a request of the old session may still be on the wire.
    lastNow = now;
    registerRequested = true;
    sendIfAllowed(now);
  }

  /**
   * One step: apply an answer that arrived, expire the lease if it passed, then send at most one
   * request (a resend first, then a transition asked for, then a heartbeat when due).
   */
  public void tick(long now) {
    lastNow = now;
    harvest(now);
    expireIfPast(now);
    sendIfAllowed(now);
  }

  /**
   * Starts draining: the next request is {@code active → draining} with 0 capacity. Pulls stop at
   * once ({@link #pullPermit(long)} is empty from now on). Idempotent.
   */
  public void beginDrain() {
    drainRequested = true;
    registerRequested = false;
    if (state == SessionState.REGISTERING && outstanding != null && outstanding.future == null) {
      abandonRegister();
    }
  }

  /**
   * Shutdown while registering: a register that never reached the server holds nothing, and one
   * that may have been applied holds no runs yet (the next register fences it), so drain has
   * nothing to wait for. A register on the wire is awaited (its deadline bounds it): an answer
   * that registers the session is drained and taken offline as usual.
   */
  private void abandonRegister() {
    outstanding = null;
    lastProblem = "shutdown while registering";
    move(SessionState.NONE, "shutdown while registering: no session is held, nothing to drain");
  }

  /**
   * Ends the session: {@code draining → offline} (or {@code active → offline}). Call only when the
   * execution plane has proven that every run is settled. Idempotent.
   */
  public void disconnect() {
    drainRequested = true;
    offlineRequested = true;
  }

  /**
   * The highest generation this worker held before this process started (from the journal): a
   * register answer must be greater (section 6), even right after a restart.
   */
  public void generationHeldBefore(long generation) {
    if (highestGeneration == null || generation > highestGeneration) {
      highestGeneration = generation;
    }
  }

  /**
   * A credential file changed: a session whose credentials were refused (suspended, or draining)
   * retries at once (section 6), and so does a register refused for its credentials. A server's
   * retry-after is still honoured (section 6: 429/503).
   */
  public void credentialsChanged() {
    if (credentialsRefused || state == SessionState.NONE) {
      notBefore.clear();
      nextHeartbeatAt.clear();
    }
  }

  /**
   * What an execution answer (pull or complete) does to the session, by {@link Reactions}' table:
   * a fence or a drift ends it, a credential refusal suspends pulling while heartbeats go on, a
   * completion refused as a client bug stops pulling for the rest of the session.
   */
  public void executionAnswered(Operation op, Answer<?> answer) {
    if (!state.isLive()) {
      return;
    }
    String what = op.wireName() + ": " + answer;
    switch (Reactions.of(op, answer.kind())) {
      case FENCE -> {
        lastProblem = what;
        if (answer instanceof Answer.Refusal<?> r && r.kind() == AnswerKind.DRIFT) {
          listener.drifted(r.drift());
        }
        move(SessionState.FENCED, answer.kind() == AnswerKind.FENCED ? "fenced by the server: " + what
            : "failing closed: " + what);
      }
      case RESEND_AND_FAIL_CLOSED -> {
        lastProblem = "failing closed: " + what;
        if (answer instanceof Answer.Refusal<?> r) {
          listener.drifted(r.drift());
        }
        move(SessionState.FENCED, lastProblem);
      }
      case SUSPEND -> {
        lastProblem = what;
        credentialsRefused = true;
        if (state == SessionState.ACTIVE) {
          move(SessionState.SUSPENDED, "credentials rejected: " + what);
        }
      }
      case SETTLE_UNDELIVERABLE_STOP_PULLING -> {
        lastProblem = "pulling stopped: " + what;
        pullsStopped = true;
      }
      case APPLY, RESEND, REGISTER_AGAIN, REPLAN_FOR_HTTP1, SETTLE_SUPERSEDED, SETTLE_UNDELIVERABLE -> {
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
    if (!state.isLive()) {
      return;
    }
    lastProblem = why;
    move(SessionState.FENCED, why);
  }

  /** A pull answer drifted: fail closed, the session is treated as fenced (section 6). */
  public void drifted(Drift drift) {
    if (!state.isLive()) {
      return;
    }
    lastProblem = "drift: " + drift.reason().code() + ": " + drift.detail();
    listener.drifted(drift);
    move(SessionState.FENCED, lastProblem);
  }

  // ------------------------------------------------------------------ queries

  public SessionState state() {
    return state;
  }

  /** The session pulls run under, when pulling is allowed now: active, lease valid, not draining. */
  public Optional<SessionLease> pullPermit(long now) {
    if (state != SessionState.ACTIVE || drainRequested || pullsStopped || leaseDeadline.reached(now)
        || leaseToConfirmFrom.isSet()) {
      return Optional.empty();
    }
    return Optional.of(new SessionLease(sessionId, generation));
  }

  /**
   * The monotonic clock missed {@code lostNanos} (a suspend; {@link
   * io.ql3.worker.runtime.cadence.ClockGapDetector}): the server's lease ran that much more than
   * ours. The local lease deadline moves that much earlier (past it the session expires as
   * usual), a heartbeat is due at once, and pulls wait until a heartbeat sent from now on is
   * accepted.
   */
  public void clockGap(long lostNanos, long now) {
    if (!state.isLive()) {
      return;
    }
    leaseDeadline.earlier(lostNanos);
    nextHeartbeatAt.set(now);
    leaseToConfirmFrom.set(now);
    lastProblem = "the monotonic clock missed " + lostNanos / NANOS_PER_MS + " ms (suspended?): lease re-validated";
    expireIfPast(now);
  }

  /** The current or last session id; empty before the first register. */
  public Optional<SessionId> sessionId() {
    return Optional.ofNullable(sessionId);
  }

  public long generation() {
    return generation;
  }

  public long version() {
    return version;
  }

  /** The last heartbeat interval the server gave, in ms (0 before the first answer). */
  public long heartbeatIntervalMs() {
    return heartbeatIntervalMs;
  }

  /** Time left on the local lease, or zero when no live session. */
  public Duration leaseRemaining(long now) {
    if (!state.isLive()) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, leaseDeadline.remaining(now)));
  }

  /** True when a session request is on the wire or waiting to be resent. */
  public boolean requestOutstanding() {
    return outstanding != null;
  }

  public boolean drainRequested() {
    return drainRequested;
  }

  /** The last problem seen (for status), or empty. */
  public String lastProblem() {
    return lastProblem;
  }

  // ------------------------------------------------------------------ internals

  /** The one session request that is not settled yet: same record (same bytes) until it is. */
  private static final class Outstanding {
    final Operation op;
    final Object request;
    final SessionId session;
    /** When the current try was handed to the transport. */
    long tryAt;
    /** When the earliest try that may have reached the server was sent, or -1. */
    long leaseBase = -1;
    /** Some try's outcome was unknown: the server may have applied it. */
    boolean mayHaveBeenApplied;
    CompletableFuture<? extends Answer<?>> future;

    Outstanding(Operation op, Object request, SessionId session) {
      this.op = op;
      this.request = request;
      this.session = session;
    }
  }

  private void sendIfAllowed(long now) {
    if (outstanding != null && outstanding.future != null) {
      return; // on the wire: never two session requests at once
    }
    if (notBefore.pending(now) || retryAfterUntil.pending(now)) {
      return; // backing off after a failure, or the server asked us to wait
    }
    if (outstanding == null) {
      outstanding = nextRequest(now);
      if (outstanding == null) {
        return;
      }
    }
    Outstanding o = outstanding;
    o.tryAt = now;
    CompletableFuture<? extends Answer<?>> f =
        switch (o.op) {
          case REGISTER -> client.register(o.session, (RegisterRequest) o.request);
          case HEARTBEAT -> client.heartbeat(o.session, (HeartbeatRequest) o.request);
          case TRANSITION -> client.transition(o.session, (TransitionRequest) o.request);
          case PULL, COMPLETE -> throw new IllegalStateException("not a session operation: " + o.op);
        };
    o.future = f;
    f.whenComplete((r, e) -> wake.run());
  }

  /** What to send next when nothing is outstanding, or null. */
  private Outstanding nextRequest(long now) {
    if (registerRequested) {
      registerRequested = false;
      SessionId next = ids.nextSessionId();
      sessionId = next;
      version = 0;
      // REGISTERING first: the oracle publishes slots only for a registering or active session.
      move(SessionState.REGISTERING, "registering session " + next.value());
      RegisterRequest request = RegisterRequest.of(capability, clampSlots(inputs.availableSlots()));
      return new Outstanding(Operation.REGISTER, request, next);
    }
    if (!state.isLive()) {
      return null;
    }
    int max = capability.limits().maxConcurrentRuns();
    if (offlineRequested && (state == SessionState.DRAINING || state == SessionState.ACTIVE || state == SessionState.SUSPENDED)) {
      SessionStatus from = state == SessionState.DRAINING ? SessionStatus.DRAINING : SessionStatus.ACTIVE;
      if (from == SessionStatus.ACTIVE) {
        // Always go through draining: it tells the server to stop offering before we leave.
        return transition(SessionStatus.ACTIVE, SessionStatus.DRAINING, max);
      }
      return transition(from, SessionStatus.OFFLINE, max);
    }
    if (drainRequested && (state == SessionState.ACTIVE || state == SessionState.SUSPENDED)) {
      return transition(SessionStatus.ACTIVE, SessionStatus.DRAINING, max);
    }
    if (!nextHeartbeatAt.pending(now)) {
      boolean draining = state == SessionState.DRAINING;
      // No slots while draining, nor once pulls stopped for a client bug: never advertise capacity
      // this session will not pull.
      int slots = draining || drainRequested || pullsStopped ? 0 : clampSlots(inputs.availableSlots());
      RunCounts runs = inputs.runCounts();
      HeartbeatRequest hb =
          new HeartbeatRequest(
              new Capacity(slots, max),
              generation,
              runs,
              draining ? SessionStatus.DRAINING : SessionStatus.ACTIVE,
              version);
      return new Outstanding(Operation.HEARTBEAT, hb, sessionId);
    }
    return null;
  }

  private Outstanding transition(SessionStatus from, SessionStatus to, int max) {
    TransitionRequest t = new TransitionRequest(new Capacity(0, max), from, generation, to, version);
    return new Outstanding(Operation.TRANSITION, t, sessionId);
  }

  private int clampSlots(int slots) {
    return Math.max(0, Math.min(slots, capability.limits().maxConcurrentRuns()));
  }

  private void harvest(long now) {
    Outstanding o = outstanding;
    if (o == null || o.future == null || !o.future.isDone()) {
      return;
    }
    @SuppressWarnings("unchecked")
    Answer<Object> answer = Answers.of((CompletableFuture<Answer<Object>>) o.future);
    o.future = null;
    if (!answer.kind().notSent() && o.leaseBase < 0) {
      o.leaseBase = o.tryAt; // the lease runs from the earliest try the server may have seen
    }
    o.mayHaveBeenApplied |= answer.kind().mayHaveBeenApplied();
    Reaction reaction = Reactions.of(o.op, answer.kind());
    switch (o.op) {
      case REGISTER -> onRegister(now, o, reaction, answer);
      case HEARTBEAT -> onHeartbeat(now, o, reaction, answer);
      case TRANSITION -> onTransition(now, o, reaction, answer);
      case PULL, COMPLETE -> throw new IllegalStateException("not a session operation: " + o.op);
    }
  }

  private void onRegister(long now, Outstanding o, Reaction reaction, Answer<?> answer) {
    if (state != SessionState.REGISTERING) {
      outstanding = null; // ended meanwhile; nothing to apply
      return;
    }
    switch (reaction) {
      case APPLY -> {
        RegisterResponse resp = (RegisterResponse) ((Answer.Success<?>) answer).value();
        Optional<Drift> drift = DriftCheck.register(resp, highestGeneration);
        outstanding = null;
        if (drift.isPresent()) {
          fence(drift.get(), now);
          return;
        }
        credentialsRefused = false;
        pullsStopped = false;
        retryAfterUntil.clear();
        generation = resp.generation();
        highestGeneration = generation;
        version = resp.version();
        heartbeatIntervalMs = resp.heartbeatIntervalMs();
        leaseDeadline.set(o.leaseBase + resp.leaseTtlMs() * NANOS_PER_MS);
        nextHeartbeatAt.set(now + heartbeatIntervalMs * NANOS_PER_MS);
        listener.registered(sessionId, generation);
        move(SessionState.ACTIVE, "registered generation " + generation
            + resp.replacedSession().map(p -> ", fenced previous session " + p.sessionId().value()).orElse(""));
      }
      case RESEND -> {
        if (drainRequested) {
          abandonRegister();
        } else {
          retryLater(now, answer, o.op);
        }
      }
      case REGISTER_AGAIN -> {
        // This sessionId cannot be used (session_conflict, refused credentials, a client bug, a
        // drifting answer): a later register takes a new one.
        outstanding = null;
        refuseRegister(now, answer.toString());
      }
      case SUSPEND, FENCE, REPLAN_FOR_HTTP1, SETTLE_SUPERSEDED, SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING, RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no register reaction " + reaction);
    }
  }

  private void refuseRegister(long now, String why) {
    lastProblem = "register refused: " + why;
    notBefore.set(now + retry.nextDelayNanos());
    move(SessionState.NONE, lastProblem);
  }

  private void onHeartbeat(long now, Outstanding o, Reaction reaction, Answer<?> answer) {
    HeartbeatRequest sent = (HeartbeatRequest) o.request;
    if (!state.isLive()) {
      outstanding = null; // expired or fenced meanwhile: the answer changes nothing
      return;
    }
    switch (reaction) {
      case APPLY -> {
        HeartbeatResponse resp = (HeartbeatResponse) ((Answer.Success<?>) answer).value();
        outstanding = null;
        Optional<Drift> drift = DriftCheck.heartbeat(resp, sent);
        if (drift.isPresent()) {
          fence(drift.get(), now);
          return;
        }
        accepted();
        version = resp.version();
        heartbeatIntervalMs = resp.heartbeatIntervalMs();
        leaseDeadline.set(o.leaseBase + resp.leaseTtlMs() * NANOS_PER_MS);
        nextHeartbeatAt.set(now + heartbeatIntervalMs * NANOS_PER_MS);
        if (leaseToConfirmFrom.reached(o.leaseBase)) {
          leaseToConfirmFrom.clear(); // sent after the gap: the server's lease is known again
        }
        if (state == SessionState.SUSPENDED) {
          move(SessionState.ACTIVE, "heartbeat accepted again");
        }
        if (!resp.cancelRuns().isEmpty()) {
          listener.cancelRequested(resp.cancelRuns());
        }
        if (resp.workAvailable()) {
          listener.workAvailable();
        }
      }
      case SUSPEND -> {
        suspend(now, o, answer);
        if (state == SessionState.ACTIVE) {
          move(SessionState.SUSPENDED, "credentials rejected: heartbeat: " + answer);
        } else {
          listener.requestFailed("heartbeat", answer.toString());
        }
      }
      case RESEND -> retryLater(now, answer, o.op);
      case FENCE -> fenceBy(now, o.op, answer);
      case REGISTER_AGAIN, REPLAN_FOR_HTTP1, SETTLE_SUPERSEDED, SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING, RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no heartbeat reaction " + reaction);
    }
  }

  private void onTransition(long now, Outstanding o, Reaction reaction, Answer<?> answer) {
    TransitionRequest sent = (TransitionRequest) o.request;
    if (!state.isLive()) {
      outstanding = null;
      return;
    }
    switch (reaction) {
      case APPLY -> {
        TransitionResponse resp = (TransitionResponse) ((Answer.Success<?>) answer).value();
        outstanding = null;
        Optional<Drift> drift = DriftCheck.transition(resp, sent, heartbeatIntervalMs);
        if (drift.isPresent()) {
          fence(drift.get(), now);
          return;
        }
        accepted();
        version = resp.version();
        if (resp.status() == SessionStatus.DRAINING) {
          leaseDeadline.set(o.leaseBase + resp.leaseTtlMs() * NANOS_PER_MS);
          nextHeartbeatAt.set(now + heartbeatIntervalMs * NANOS_PER_MS);
          move(SessionState.DRAINING, "draining with 0 capacity");
        } else {
          move(SessionState.OFFLINE, "offline");
        }
      }
      case RESEND -> retryLater(now, answer, o.op);
      case SUSPEND -> {
        suspend(now, o, answer);
        listener.requestFailed("transition", answer.toString());
      }
      case FENCE -> fenceBy(now, o.op, answer);
      case REGISTER_AGAIN, REPLAN_FOR_HTTP1, SETTLE_SUPERSEDED, SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING, RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no transition reaction " + reaction);
    }
  }

  /** An accepted heartbeat or transition: the session is healthy again; a server's wait is over. */
  private void accepted() {
    retry.reset();
    credentialsRefused = false;
    retryAfterUntil.clear();
  }

  /**
   * Credentials refused: try again at the next due time (at once when a credential file
   * changes). A record some earlier try of which may have been applied is kept, so the retry
   * sends its identical bytes; otherwise it is built afresh then.
   */
  private void suspend(long now, Outstanding o, Answer<?> answer) {
    lastProblem = o.op.wireName() + ": " + answer;
    credentialsRefused = true;
    long due = now + heartbeatIntervalMs * NANOS_PER_MS;
    nextHeartbeatAt.set(due);
    if (o.mayHaveBeenApplied) {
      notBefore.set(due);
    } else {
      outstanding = null;
      if (o.op == Operation.TRANSITION) {
        notBefore.set(due);
      }
    }
  }

  private void fenceBy(long now, Operation op, Answer<?> answer) {
    outstanding = null;
    if (answer instanceof Answer.Refusal<?> r && r.kind() == AnswerKind.DRIFT) {
      fence(r.drift(), now);
      return;
    }
    lastProblem = op.wireName() + ": " + answer;
    move(SessionState.FENCED, answer.kind() == AnswerKind.FENCED ? "fenced by the server: " + lastProblem
        : "refused as a client bug, failing closed: " + lastProblem);
  }

  /** Keeps the outstanding record for a byte-identical resend after a backoff (or the capped retry-after). */
  private void retryLater(long now, Answer<?> answer, Operation op) {
    long delay = retry.nextDelayNanos();
    if (answer.retryAfter().isPresent()) {
      long wait = Reactions.cappedRetryAfter(op, answer.retryAfter().get(), heartbeatIntervalMs).toNanos();
      delay = Math.max(delay, wait);
      retryAfterUntil.set(now + wait);
    }
    notBefore.set(now + delay);
    lastProblem = op.wireName() + ": " + answer;
    listener.requestFailed(op.wireName(), answer.toString());
  }

  private void fence(Drift drift, long now) {
    lastProblem = "drift: " + drift.reason().code() + ": " + drift.detail();
    listener.drifted(drift);
    move(SessionState.FENCED, lastProblem);
  }

  private void expireIfPast(long now) {
    if (state.isLive() && leaseDeadline.reached(now)) {
      move(SessionState.EXPIRED, "local lease deadline passed");
    }
  }

  private void move(SessionState next, String why) {
    SessionState prev = state;
    if (prev == next) {
      return;
    }
    if (!prev.canMoveTo(next)) {
      throw new IllegalStateException("session state " + prev + " cannot move to " + next + " (" + why + ")");
    }
    state = next;
    if (next == SessionState.FENCED || next == SessionState.EXPIRED) {
      // The next register waits a growing delay: a server that keeps fencing (or answers that
      // keep drifting) costs one session per backoff step, not one per cadence tick.
      notBefore.set(lastNow + retry.nextDelayNanos());
      credentialsRefused = false;
    }
    if (next.isEnded() || next == SessionState.NONE) {
      leaseToConfirmFrom.clear(); // a new session starts with a lease of its own
      // An outstanding request of an ended session is never resent.
      if (outstanding != null && outstanding.future == null) {
        outstanding = null;
      }
    }
    listener.stateChanged(prev, next, why);
  }
}
