package io.ql3.worker.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.Uuid7Generator;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The coordinator against a scripted client (the public {@link Answer} type is the seam) and a
 * hand-driven clock: no TLS, no server. Each test is one section 6 rule that a defect broke.
 */
class SessionAnswersTest {
  static final long MS = 1_000_000L;
  static final long H = 5_000;
  static final long L = 15_000;

  /** Hands out scripted answers in order; records the canonical bytes of every request. */
  static final class ScriptedClient implements SessionCoordinator.IngressClient {
    final Deque<Answer<?>> script = new ArrayDeque<>();
    final List<String> sent = new ArrayList<>();

    /** The answer of the last request sent with nothing scripted: still on the wire. */
    CompletableFuture<Answer<?>> onTheWire;

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <T> CompletableFuture<Answer<T>> next() {
      Answer<?> a = script.poll();
      if (a == null) {
        onTheWire = new CompletableFuture<>();
        return (CompletableFuture) onTheWire;
      }
      return CompletableFuture.completedFuture((Answer<T>) a);
    }

    @Override
    public CompletableFuture<Answer<RegisterResponse>> register(SessionId s, RegisterRequest r) {
      sent.add("register " + new String(r.toCanonicalBytes(), StandardCharsets.UTF_8));
      return next();
    }

    @Override
    public CompletableFuture<Answer<HeartbeatResponse>> heartbeat(SessionId s, HeartbeatRequest r) {
      sent.add("heartbeat " + new String(r.toCanonicalBytes(), StandardCharsets.UTF_8));
      return next();
    }

    @Override
    public CompletableFuture<Answer<TransitionResponse>> transition(
        SessionId s, TransitionRequest r) {
      sent.add("transition " + new String(r.toCanonicalBytes(), StandardCharsets.UTF_8));
      return next();
    }
  }

  final ScriptedClient client = new ScriptedClient();
  int slots = 2;
  long now = 1_000 * MS;
  final SessionCoordinator coordinator;

  SessionAnswersTest() throws Exception {
    Capability capability =
        new CapabilityBuilder()
            .agent("1.0.0", "0".repeat(40))
            .architecture("amd64")
            .os("linux")
            .runtime("java", "17")
            .executor("noop", "1")
            .limits(2, 65536, 1)
            .profile(Profile.EDGE)
            .build();
    coordinator =
        new SessionCoordinator(
            client,
            capability,
            new SessionInputs() {
              @Override
              public int availableSlots() {
                return slots;
              }

              @Override
              public RunCounts runCounts() {
                return new RunCounts(0, 0);
              }
            },
            new SessionListener() {},
            new Uuid7Generator(Clock.systemUTC(), new Random(7)),
            () -> {},
            Duration.ofSeconds(1),
            Duration.ofSeconds(8),
            new Random(42));
  }

  static Answer<?> registered(long generation) {
    return Answer.success(new RegisterResponse(generation, H, L, null, SessionStatus.ACTIVE, 1));
  }

  static Answer<?> heartbeatAccepted(long version) {
    return Answer.success(
        new HeartbeatResponse(List.of(), 7, H, L, SessionStatus.ACTIVE, version, false));
  }

  static Answer<?> refused(AnswerKind kind) {
    return Answer.refused(kind, "scripted");
  }

  static Answer<?> unavailable(long retryAfterSeconds) {
    return new Answer.Refusal<>(
        AnswerKind.TRANSIENT,
        503,
        ErrorCode.UNAVAILABLE,
        Optional.of(Duration.ofSeconds(retryAfterSeconds)),
        null,
        "scripted");
  }

  void advance(long ms) {
    now += ms * MS;
  }

  /**
   * Ticks (harvesting what arrived) in 100 ms steps until {@code n} requests were sent, at most 30
   * s.
   */
  void tickUntilSent(int n) {
    for (int i = 0; i < 300 && client.sent.size() < n; i++) {
      advance(100);
      coordinator.tick(now);
    }
    assertThat(client.sent).hasSize(n);
    coordinator.tick(now); // harvest its answer
  }

  /** Registers generation 7 and ticks until active. */
  void active() {
    client.script.add(registered(7));
    coordinator.register(now);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
  }

  @Test
  void aSuspendShorterThanTheLeaseHoldsPullsUntilAHeartbeatSentAfterItIsAccepted() {
    active();
    assertThat(coordinator.pullPermit(now)).isPresent();
    advance(1_000);
    coordinator.clockGap(5_000 * MS, now); // the ticker missed 5 s of the server's 15 s lease
    assertThat(coordinator.pullPermit(now)).as("lease unknown until re-validated").isEmpty();
    assertThat(coordinator.leaseRemaining(now).toMillis()).isEqualTo(L - 1_000 - 5_000);
    client.script.add(heartbeatAccepted(2));
    coordinator.tick(now); // the heartbeat is due at once
    assertThat(client.sent).hasSize(2);
    assertThat(client.sent.get(1)).startsWith("heartbeat");
    coordinator.tick(now); // its answer
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.pullPermit(now)).isPresent();
  }

  @Test
  void aSuspendLongerThanTheLeaseExpiresTheSessionAtOnce() {
    active();
    advance(1_000);
    coordinator.clockGap(60_000 * MS, now);
    assertThat(coordinator.state()).isEqualTo(SessionState.EXPIRED);
    assertThat(coordinator.pullPermit(now)).isEmpty();
  }

  @Test
  void theClockGapDetectorReportsOnlyWallTimeTheTickerDidNotSee() {
    io.ql3.worker.runtime.cadence.ClockGapDetector d =
        new io.ql3.worker.runtime.cadence.ClockGapDetector(5_000 * MS);
    assertThat(d.lost(0, 100_000)).isZero();
    assertThat(d.lost(1_000 * MS, 101_000)).as("both advanced alike (also under SIGSTOP)").isZero();
    assertThat(d.lost(2_000 * MS, 102_000 + 4_000)).as("below the threshold").isZero();
    assertThat(d.lost(3_000 * MS, 107_000 + 60_000)).as("a 60 s suspend").isEqualTo(60_000 * MS);
    assertThat(d.lost(4_000 * MS, 100_000)).as("the wall clock stepped back").isZero();
  }

  /**
   * A heartbeat whose outcome is unknown, then refused for its credentials, is resent with the
   * identical bytes (not rebuilt with other slots): the lost try may have been applied, and
   * different bytes would be a needless version_conflict fence.
   */
  @Test
  void aHeartbeatWhoseOutcomeIsUnknownKeepsItsBytesThroughACredentialRefusal() {
    active();
    client.script.add(refused(AnswerKind.OUTCOME_UNKNOWN));
    client.script.add(refused(AnswerKind.CREDENTIAL_REJECTED));
    advance(H);
    coordinator.tick(now); // heartbeat: outcome unknown
    tickUntilSent(3); // its resend: credentials rejected
    assertThat(coordinator.state()).isEqualTo(SessionState.SUSPENDED);
    slots = 0; // what a rebuilt heartbeat would now say
    client.script.add(heartbeatAccepted(2));
    tickUntilSent(4);
    List<String> heartbeats = client.sent.stream().filter(s -> s.startsWith("heartbeat")).toList();
    assertThat(heartbeats).hasSize(3);
    assertThat(heartbeats).containsOnly(heartbeats.get(0));
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
  }

  /**
   * A heartbeat refused for its credentials that was never possibly applied is rebuilt at its next
   * due time.
   */
  @Test
  void aRefusedHeartbeatThatCannotHaveBeenAppliedIsBuiltAfresh() {
    active();
    client.script.add(refused(AnswerKind.CREDENTIAL_REJECTED));
    advance(H);
    coordinator.tick(now);
    coordinator.tick(now);
    slots = 0;
    client.script.add(heartbeatAccepted(2));
    advance(H);
    coordinator.tick(now);
    List<String> heartbeats = client.sent.stream().filter(s -> s.startsWith("heartbeat")).toList();
    assertThat(heartbeats).hasSize(2);
    assertThat(heartbeats.get(1)).isNotEqualTo(heartbeats.get(0)).contains("\"availableSlots\":0");
  }

  /**
   * The local lease runs from the send time of the try that was sent, not from an earlier try that
   * never left the client.
   */
  @Test
  void theLeaseRunsFromTheTryThatWasSentNotFromAnUnsentOne() {
    client.script.add(refused(AnswerKind.NOT_SENT));
    coordinator.register(now);
    coordinator.tick(now); // the register was not sent (no connection)
    assertThat(coordinator.state()).isEqualTo(SessionState.REGISTERING);
    advance(10_000);
    long sentAt = now;
    client.script.add(registered(7));
    coordinator.tick(now);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    // lease = the sent try's time + 15 s, not the unsent one's (which would end 10 s earlier)
    assertThat(coordinator.leaseRemaining(now)).isEqualTo(Duration.ofNanos(sentAt + L * MS - now));
    advance(L - 1);
    coordinator.tick(now);
    assertThat(coordinator.state()).isNotEqualTo(SessionState.EXPIRED);
  }

  /**
   * A register the server refused as {@code rate_limited} was not applied: the lease runs from the
   * try that was, so a register rate-limited for longer than the lease still gets a session it can
   * use. A 503 page without a contract error (a proxy's) may have been forwarded first: the lease
   * then runs from that try, as after a lost answer.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void theLeaseRunsFromTheFirstTryTheServerMayHaveApplied(boolean proxyPage) {
    client.script.add(
        new Answer.Refusal<>(
            AnswerKind.TRANSIENT,
            proxyPage ? 503 : 429,
            proxyPage ? null : ErrorCode.RATE_LIMITED,
            java.util.Optional.empty(),
            null,
            "scripted"));
    coordinator.register(now);
    long firstAt = now;
    coordinator.tick(now);
    coordinator.tick(now); // refused
    assertThat(coordinator.state()).isEqualTo(SessionState.REGISTERING);
    advance(L / 2);
    long sentAt = now;
    client.script.add(registered(7));
    coordinator.tick(now);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.leaseRemaining(now))
        .as(proxyPage ? "a proxy's 503" : "the server's rate_limited")
        .isEqualTo(Duration.ofNanos((proxyPage ? firstAt : sentAt) + L * MS - now));
  }

  /**
   * A retry-after of a day on a heartbeat is capped at the heartbeat interval (section 6
   * clarifications), so one load balancer 503 cannot silence the session past its lease.
   */
  @Test
  void aRetryAfterOfADayOnAHeartbeatIsCappedAtTheHeartbeatInterval() {
    active();
    client.script.add(unavailable(86_400));
    advance(H);
    coordinator.tick(now);
    coordinator.tick(now);
    assertThat(client.sent).hasSize(2);
    client.script.add(heartbeatAccepted(2));
    advance(H);
    coordinator.tick(now);
    assertThat(client.sent).as("resent one heartbeat interval later").hasSize(3);
    coordinator.tick(now);
    assertThat(coordinator.version()).isEqualTo(2);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
  }

  /**
   * A success clears a server's earlier retry-after: the next request waits only for its own due
   * time.
   */
  @Test
  void aSuccessClearsAnEarlierRetryAfter() {
    active();
    client.script.add(unavailable(4));
    advance(H);
    coordinator.tick(now);
    coordinator.tick(now);
    client.script.add(heartbeatAccepted(2));
    advance(4_000);
    coordinator.tick(now);
    coordinator.tick(now);
    assertThat(coordinator.version()).isEqualTo(2);
    coordinator.beginDrain(); // a transition is due at once
    client.script.add(Answer.success(new TransitionResponse(7, L, SessionStatus.DRAINING, 3)));
    coordinator.tick(now);
    assertThat(client.sent).last().asString().startsWith("transition");
  }

  /**
   * SIGTERM while registering with the ingress unreachable: a register that never left holds
   * nothing, so drain has nothing to wait for; the session ends with no session held.
   */
  @Test
  void shutdownWhileRegisteringUnreachableEndsWithNoSessionHeld() {
    client.script.add(refused(AnswerKind.NOT_SENT));
    coordinator.register(now);
    coordinator.tick(now);
    assertThat(coordinator.requestOutstanding()).isTrue();
    coordinator.beginDrain();
    assertThat(coordinator.state()).isEqualTo(SessionState.NONE);
    assertThat(coordinator.requestOutstanding()).isFalse();
    advance(60_000);
    coordinator.tick(now);
    assertThat(client.sent).hasSize(1);
  }

  /**
   * SIGTERM with a register on the wire: it is awaited (its deadline bounds it); a failed try ends
   * it, no resend.
   */
  @Test
  void shutdownWhileARegisterIsOnTheWireEndsWhenItsTryFails() {
    coordinator.register(now);
    coordinator.tick(now);
    coordinator.beginDrain();
    assertThat(coordinator.state()).as("on the wire: awaited").isEqualTo(SessionState.REGISTERING);
    client.onTheWire.complete(refused(AnswerKind.OUTCOME_UNKNOWN));
    advance(1_000);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.NONE);
    assertThat(coordinator.requestOutstanding()).isFalse();
    advance(60_000);
    coordinator.tick(now);
    assertThat(client.sent).hasSize(1);
  }

  /**
   * A completion or a pull refused as a client bug stops pulling for the rest of the session, and
   * only that: the session is kept, its heartbeats (advertising no slot it will not pull) keep the
   * lease of the runs it holds, and a drain still ends offline; only a 409 ends it.
   */
  @ParameterizedTest
  @EnumSource(
      value = io.ql3.worker.contract.Operation.class,
      names = {"COMPLETE", "PULL"})
  void aPullOrCompletionRefusedAsAClientBugStopsPullingAndKeepsTheSessionHeartbeating(
      io.ql3.worker.contract.Operation op) {
    active();
    coordinator.executionAnswered(op, refused(AnswerKind.CLIENT_BUG));
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.pullPermit(now)).isEmpty();
    assertThat(coordinator.pullsStopped()).isTrue();
    client.script.add(heartbeatAccepted(2));
    advance(H);
    coordinator.tick(now);
    assertThat(client.sent)
        .last()
        .asString()
        .startsWith("heartbeat")
        .contains("\"availableSlots\":0");
  }
}
