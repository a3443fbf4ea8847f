package io.ql3.worker.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.IngressResult;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timer-free coordinator driven by hand: the test owns the client's monotonic time and the
 * server's clock, and moves both together; requests go over real TLS 1.3 to the real reference
 * control plane, which fences, replays and injects faults exactly as the contract says. Nothing
 * here asserts on elapsed wall time: waits are for answers that must arrive.
 */
class SessionCoordinatorTest {
  static final String WORKER = "edge-0001";
  static final long H = 5_000;
  static final long L = 15_000;
  static final long MS = 1_000_000L;

  @TempDir Path dir;
  ControlPlaneServer cp;
  IngressClient client;
  SessionCoordinator coordinator;
  final ManualClock serverClock = new ManualClock();
  final Semaphore wakes = new Semaphore(0);
  final List<String> events = new ArrayList<>();
  final List<String> sent = new ArrayList<>();
  long now = 1_000 * MS; // the client's ticker; any origin works

  @BeforeEach
  void start() throws Exception {
    DevPki pki = new DevPki(dir.resolve("pki"), Duration.ofDays(30));
    pki.create(List.of(WORKER));
    cp =
        ControlPlaneServer.start(
            new ControlPlaneServer.Config(
                pki.dir(),
                "127.0.0.1",
                0,
                0,
                Alpn.H2_AND_HTTP1,
                new Settings(H, L, L, 500, 64),
                serverClock,
                1,
                EventLog.quiet(),
                false));
    Path w = pki.workerDir(WORKER);
    CredentialProvider credentials =
        CredentialProvider.load(
            new CredentialFiles(
                w.resolve("client.crt"), w.resolve("client.key"), pki.caCert(), w.resolve("token")),
            WORKER,
            Clock.systemUTC(),
            CredentialProvider.Settings.defaults());
    client =
        IngressClient.open(
            new IngressEndpoint("127.0.0.1", cp.ingressAddress().getPort()),
            WorkerId.of(WORKER),
            credentials,
            TransportSettings.defaults("test"));
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
            counting(client),
            capability,
            new SessionInputs() {
              @Override
              public int availableSlots() {
                return 2;
              }

              @Override
              public RunCounts runCounts() {
                return new RunCounts(0, 0);
              }
            },
            new SessionListener() {
              @Override
              public void stateChanged(SessionState from, SessionState to, String why) {
                events.add(from + "->" + to);
              }

              @Override
              public void requestFailed(String operation, String what) {
                events.add("failed " + operation);
              }
            },
            new Uuid7Generator(Clock.systemUTC(), new Random(7)),
            wakes::release,
            Duration.ofSeconds(1),
            Duration.ofSeconds(8),
            new Random(42));
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cp != null) {
      cp.close();
    }
  }

  /** Counts what the coordinator sends: the seam, wrapping the real client. */
  private SessionCoordinator.IngressClient counting(IngressClient c) {
    return new SessionCoordinator.IngressClient() {
      @Override
      public CompletableFuture<Answer<RegisterResponse>> register(SessionId s, RegisterRequest r) {
        sent.add("register");
        return c.register(s, r).thenApply(IngressResult::answer);
      }

      @Override
      public CompletableFuture<Answer<HeartbeatResponse>> heartbeat(
          SessionId s, HeartbeatRequest r) {
        sent.add("heartbeat v" + r.version());
        return c.heartbeat(s, r).thenApply(IngressResult::answer);
      }

      @Override
      public CompletableFuture<Answer<TransitionResponse>> transition(
          SessionId s, TransitionRequest r) {
        sent.add("transition " + r.from().wire() + "->" + r.to().wire());
        return c.transition(s, r).thenApply(IngressResult::answer);
      }
    };
  }

  /** Moves both clocks by {@code ms}. */
  private void advance(long ms) {
    now += ms * MS;
    serverClock.advance(ms);
  }

  /** Waits for the outstanding request's answer, then applies it with a tick at the same time. */
  private void answer() throws InterruptedException {
    assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("an answer arrives").isTrue();
    coordinator.tick(now);
  }

  private Views.SessionView serverSession() {
    return cp.controlPlane().workers().stream()
        .filter(w -> w.workerId().equals(WORKER))
        .findFirst()
        .orElseThrow()
        .sessions()
        .stream()
        .filter(s -> s.sessionId().equals(coordinator.sessionId().orElseThrow().value()))
        .findFirst()
        .orElseThrow();
  }

  private void registered() throws InterruptedException {
    coordinator.register(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
  }

  @Test
  void registersThenHeartbeatsOnlyWhenDue() throws Exception {
    registered();
    assertThat(coordinator.generation()).isEqualTo(1);
    assertThat(coordinator.version()).isEqualTo(1);
    assertThat(coordinator.pullPermit(now)).isPresent();

    advance(H - 1);
    coordinator.tick(now);
    assertThat(coordinator.requestOutstanding()).as("not due yet").isFalse();

    advance(1);
    coordinator.tick(now);
    assertThat(coordinator.requestOutstanding()).isTrue();
    coordinator.tick(now); // a tick while it is on the wire sends nothing more
    answer();
    assertThat(coordinator.version()).isEqualTo(2);
    assertThat(serverSession().version()).isEqualTo(2);
    assertThat(sent).containsExactly("register", "heartbeat v1");
    assertThat(cp.auditor().violations()).isEmpty();
  }

  @Test
  void anOutcomeUnknownHeartbeatIsResentWithTheSameBytesAndAppliedOnce() throws Exception {
    registered();
    cp.faults().add("heartbeat", Fault.Action.DROP_AFTER_APPLY, 0, null, 0, 0, 1);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(events).contains("failed heartbeat");
    assertThat(coordinator.version()).as("not applied locally").isEqualTo(1);
    assertThat(serverSession().version()).as("applied by the server").isEqualTo(2);

    advance(1_000); // the first retry waits at most the base delay
    coordinator.tick(now);
    answer();
    // The server replayed the identical request: same answer, version 2, not 3.
    assertThat(coordinator.version()).isEqualTo(2);
    assertThat(serverSession().version()).isEqualTo(2);
    assertThat(sent).containsExactly("register", "heartbeat v1", "heartbeat v1");
  }

  @Test
  void aTransientAnswerIsRetriedNoSoonerThanRetryAfter() throws Exception {
    registered();
    // 4 s: below the heartbeat interval, where the client caps a retry-after (section 6
    // clarifications)
    cp.faults().add("heartbeat", Fault.Action.ERROR, 503, "unavailable", 4, 0, 1);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);

    advance(3_999);
    coordinator.tick(now);
    assertThat(sent).hasSize(2);
    advance(1);
    coordinator.tick(now);
    answer();
    assertThat(sent).containsExactly("register", "heartbeat v1", "heartbeat v1");
    assertThat(coordinator.version()).isEqualTo(2);
  }

  @Test
  void rejectedCredentialsSuspendPullingAndTheNextDueHeartbeatRecovers() throws Exception {
    registered();
    cp.faults().add("heartbeat", Fault.Action.ERROR, 401, "credential_rejected", 0, 0, 1);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.SUSPENDED);
    assertThat(coordinator.pullPermit(now)).isEmpty();

    advance(H - 1);
    coordinator.tick(now);
    assertThat(sent).hasSize(2);
    advance(1);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.pullPermit(now)).isPresent();
  }

  @Test
  void aFencedSessionIsNeverHeartbeatedAgain() throws Exception {
    registered();
    assertThat(cp.controlPlane().fenceWorker(WORKER)).isTrue();
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.FENCED);
    assertThat(coordinator.pullPermit(now)).isEmpty();
    for (int i = 0; i < 5; i++) {
      advance(H);
      coordinator.tick(now);
    }
    assertThat(sent).containsExactly("register", "heartbeat v1");
  }

  @Test
  void theLocalLeaseEndsTheSessionWhenNoHeartbeatGetsThrough() throws Exception {
    registered();
    cp.faults().add("heartbeat", Fault.Action.ERROR, 503, "unavailable", 60, 0, 5);
    advance(H);
    coordinator.tick(now);
    answer();
    advance(L - H - 1);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    advance(1);
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.EXPIRED);
    assertThat(coordinator.pullPermit(now)).isEmpty();
    int sentBeforeExpiry = sent.size();
    advance(120_000);
    coordinator.tick(now);
    assertThat(sent).hasSize(sentBeforeExpiry);
    // the retry-after of 60 s is capped at the heartbeat interval: the identical heartbeat was
    // retried
    assertThat(sent).containsExactly("register", "heartbeat v1", "heartbeat v1");
  }

  @Test
  void drainThenOfflineWithZeroCapacity() throws Exception {
    registered();
    coordinator.beginDrain();
    assertThat(coordinator.pullPermit(now)).as("pulls stop at once").isEmpty();
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.DRAINING);
    assertThat(serverSession().status()).isEqualTo("draining");
    assertThat(serverSession().availableSlots()).isZero();

    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(sent).last().isEqualTo("heartbeat v2");

    coordinator.disconnect(now);
    assertThat(sent)
        .as("asked for after the step's tick, the offline transition leaves at once")
        .last()
        .isEqualTo("transition draining->offline");
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.OFFLINE);
    assertThat(serverSession().status()).isEqualTo("offline");
    assertThat(sent)
        .containsExactly(
            "register",
            "transition active->draining",
            "heartbeat v2",
            "transition draining->offline");
    assertThat(cp.auditor().violations()).isEmpty();
  }

  @Test
  void aNewRegisterAfterAFenceTakesANewSessionAndAHigherGeneration() throws Exception {
    registered();
    SessionId first = coordinator.sessionId().orElseThrow();
    cp.controlPlane().fenceWorker(WORKER);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.FENCED);

    coordinator.register(now);
    assertThat(sent).as("a register after a fence waits its backoff").hasSize(2);
    advance(1_000); // the first backoff step is at most the 1 s base
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.sessionId().orElseThrow()).isNotEqualTo(first);
    // Greater than any generation held before (the server may have spent one on the fence).
    assertThat(coordinator.generation()).isGreaterThan(1);
  }

  /**
   * A credential change retries at once in ANY state whose credentials were refused, draining
   * included (it used to wake only a SUSPENDED session: a draining one waited a whole heartbeat
   * interval).
   */
  @Test
  void aCredentialChangeRetriesARefusedDrainingHeartbeatAtOnce() throws Exception {
    registered();
    coordinator.beginDrain();
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.DRAINING);

    cp.faults().add("heartbeat", Fault.Action.ERROR, 401, "credential_rejected", 0, 0, 1);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state())
        .as("draining keeps its session")
        .isEqualTo(SessionState.DRAINING);
    assertThat(sent).containsExactly("register", "transition active->draining", "heartbeat v2");

    coordinator.tick(now);
    assertThat(sent).as("nothing before the next due time without a change").hasSize(3);
    coordinator.credentialsChanged();
    coordinator.tick(now);
    assertThat(sent)
        .as("retried at once")
        .containsExactly("register", "transition active->draining", "heartbeat v2", "heartbeat v2");
    answer();
    assertThat(coordinator.version()).isEqualTo(3);
    assertThat(serverSession().status()).isEqualTo("draining");
    assertThat(cp.auditor().violations()).isEmpty();
  }

  /**
   * A credential change does not override a server's retry-after (section 6, 429/503): the refused
   * session retries at once, but once the server said "come back in 7 s", a further credential
   * change does not bring the request earlier.
   */
  @Test
  void aCredentialChangeDoesNotOverrideAServersRetryAfter() throws Exception {
    registered();
    cp.faults().add("heartbeat", Fault.Action.ERROR, 401, "credential_rejected", 0, 0, 1);
    advance(H);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.SUSPENDED);

    cp.faults().add("heartbeat", Fault.Action.ERROR, 503, "unavailable", 4, 0, 1);
    coordinator.credentialsChanged();
    coordinator.tick(now);
    assertThat(sent).as("a credential change retries at once").hasSize(3);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.SUSPENDED);

    coordinator.credentialsChanged(); // another rotation while the server asks us to wait
    coordinator.tick(now);
    advance(3_999);
    coordinator.tick(now);
    assertThat(sent).as("not before the server's retry-after").hasSize(3);
    advance(1);
    coordinator.tick(now);
    assertThat(sent).hasSize(4);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    assertThat(coordinator.version()).isEqualTo(2);
    assertThat(cp.auditor().violations()).isEmpty();
  }

  /**
   * What the execution plane reports (a refused or drifting pull/complete, a lost long poll that
   * cannot be recovered) stops pulling at once: a drift fails the session closed, a credential
   * rejection suspends it; a failed-closed session is never heartbeated again.
   */
  @Test
  void executionRefusalsStopPullingAtOnce() throws Exception {
    registered();
    coordinator.executionAnswered(
        Operation.COMPLETE, Answer.refused(AnswerKind.CREDENTIAL_REJECTED, "401"));
    assertThat(coordinator.state()).isEqualTo(SessionState.SUSPENDED);
    assertThat(coordinator.pullPermit(now)).isEmpty();

    coordinator.executionAnswered(Operation.COMPLETE, Answer.refused(AnswerKind.DRIFT, "HTTP 418"));
    assertThat(coordinator.state()).isEqualTo(SessionState.FENCED);
    assertThat(coordinator.pullPermit(now)).isEmpty();
    advance(H);
    coordinator.tick(now);
    assertThat(sent).as("never heartbeated again").containsExactly("register");

    coordinator.register(now);
    advance(1_000);
    coordinator.tick(now);
    answer();
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    coordinator.failClosed("lost long poll");
    assertThat(coordinator.state()).isEqualTo(SessionState.FENCED);
    assertThat(coordinator.lastProblem()).isEqualTo("lost long poll");
    advance(H);
    coordinator.tick(now);
    assertThat(sent).containsExactly("register", "register");
  }

  /** A clock the test moves by hand (the server's lease and auditor time). */
  static final class ManualClock extends Clock {
    private final AtomicLong millis =
        new AtomicLong(Instant.parse("2026-11-29T00:00:00Z").toEpochMilli());

    void advance(long ms) {
      millis.addAndGet(ms);
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public long millis() {
      return millis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }
}
