package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.ReplacedStatus;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionResponse;
import java.net.http.HttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Register, heartbeat and transition rules (contract sections 4, 5, 6) over real TLS. */
class SessionRulesTest {
  private Harness h;
  private WorkerClient c;

  @BeforeEach
  void start() throws Exception {
    h = new Harness();
    c = h.client(W1);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  static void assertError(WorkerClient.Res r, int status, String code, Operation op)
      throws Exception {
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    ErrorBody e = ErrorBody.parse(status, op, r.body());
    assertThat(e.code().wire()).isEqualTo(code);
    assertThat(ErrorBody.parse(r.body()).toCanonicalBytes()).isEqualTo(r.body());
  }

  @Test
  void registerGivesGenerationOneVersionOneAndReplayIsByteIdentical() throws Exception {
    String s = Bodies.newId();
    byte[] body = Bodies.register(4, 4);
    WorkerClient.Res first = c.post(path(W1, s, "register"), body);
    assertThat(first.status()).isEqualTo(200);
    RegisterResponse r = RegisterResponse.parse(first.body());
    assertThat(r.generation()).isEqualTo(1);
    assertThat(r.version()).isEqualTo(1);
    assertThat(r.replaced()).isNull();
    assertThat(r.heartbeatIntervalMs()).isEqualTo(10_000);
    assertThat(r.leaseTtlMs()).isEqualTo(30_000);
    assertThat(first.body()).isEqualTo(r.toCanonicalBytes());

    WorkerClient.Res replay = c.post(path(W1, s, "register"), body);
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(h.cp().workers().get(0).generation()).isEqualTo(1);
  }

  @Test
  void registerWithSameSessionIdAndOtherBodyIsSessionConflict() throws Exception {
    String s = Bodies.newId();
    assertThat(c.post(path(W1, s, "register"), Bodies.register(4, 4)).status()).isEqualTo(200);
    assertError(
        c.post(path(W1, s, "register"), Bodies.register(3, 4)),
        409,
        "session_conflict",
        Operation.REGISTER);
  }

  @Test
  void registerReplayAfterVersionOneIsSessionConflict() throws Exception {
    String s = Bodies.newId();
    byte[] body = Bodies.register(4, 4);
    c.post(path(W1, s, "register"), body);
    h.clock.advance(10_000);
    assertThat(c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)).status())
        .isEqualTo(200);
    assertError(c.post(path(W1, s, "register"), body), 409, "session_conflict", Operation.REGISTER);
  }

  @Test
  void newRegisterFencesThePreviousSessionWithTheReplacedFact() throws Exception {
    String s1 = Bodies.newId();
    String s2 = Bodies.newId();
    c.post(path(W1, s1, "register"), Bodies.register(4, 4));
    RegisterResponse r2 =
        RegisterResponse.parse(c.post(path(W1, s2, "register"), Bodies.register(4, 4)).body());
    assertThat(r2.generation()).isEqualTo(2);
    assertThat(r2.replaced().generation()).isEqualTo(1);
    assertThat(r2.replaced().sessionId().value()).isEqualTo(s1);
    assertThat(r2.replaced().status()).isEqualTo(ReplacedStatus.ACTIVE);
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s1, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)),
        409,
        "session_fenced",
        Operation.HEARTBEAT);
    assertThat(c.post(path(W1, s2, "heartbeat"), Bodies.heartbeat(2, 1, 4, 4)).status())
        .isEqualTo(200);
  }

  @Test
  void replacedStatusIsExpiredWhenThePreviousLeaseRanOut() throws Exception {
    String s1 = Bodies.newId();
    c.post(path(W1, s1, "register"), Bodies.register(4, 4));
    h.clock.advance(30_000);
    RegisterResponse r2 =
        RegisterResponse.parse(
            c.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4)).body());
    assertThat(r2.replaced().status()).isEqualTo(ReplacedStatus.EXPIRED);
  }

  @Test
  void heartbeatIncrementsVersionRenewsLeaseAndExactRetryReplays() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    h.clock.advance(10_000);
    byte[] hb = Bodies.heartbeat(1, 1, 4, 4);
    WorkerClient.Res r1 = c.post(path(W1, s, "heartbeat"), hb);
    HeartbeatResponse hr = HeartbeatResponse.parse(r1.body());
    assertThat(hr.version()).isEqualTo(2);
    assertThat(hr.status()).isEqualTo(SessionStatus.ACTIVE);
    assertThat(hr.generation()).isEqualTo(1);
    assertThat(hr.cancelRuns()).isEmpty();
    assertThat(hr.workAvailable()).isFalse();
    // Outcome unknown on the client: the identical bytes again get the identical answer, applied
    // once.
    WorkerClient.Res retry = c.post(path(W1, s, "heartbeat"), hb);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.body()).isEqualTo(r1.body());
    assertThat(h.cp().workers().get(0).sessions().get(0).version()).isEqualTo(2);
    // The lease was renewed from the heartbeat: 29.999 s later it still holds.
    h.clock.advance(29_999);
    assertThat(c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 2, 4, 4)).status())
        .isEqualTo(200);
  }

  @Test
  void staleOrFutureVersionIsVersionConflict() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    h.clock.advance(10_000);
    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4));
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 3, 4)),
        409,
        "version_conflict",
        Operation.HEARTBEAT);
    assertError(
        c.post(path(W1, Bodies.newId(), "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)),
        409,
        "session_not_active",
        Operation.HEARTBEAT);
  }

  @Test
  void statusTheServerDoesNotHoldIsVersionConflict() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.drainingHeartbeat(1, 1, 4)),
        409,
        "version_conflict",
        Operation.HEARTBEAT);
  }

  @Test
  void wrongGenerationIsSessionFenced() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(7, 1, 4, 4)),
        409,
        "session_fenced",
        Operation.HEARTBEAT);
  }

  @Test
  void leaseExpiresOnTheServerClock() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    h.clock.advance(29_999);
    assertThat(c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)).status())
        .isEqualTo(200);
    h.clock.advance(30_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 2, 4, 4)),
        409,
        "lease_expired",
        Operation.HEARTBEAT);
    assertThat(h.cp().workers().get(0).sessions().get(0).status()).isEqualTo("expired");
  }

  @Test
  void transitionsActiveDrainingOfflineWithLeaseAndReplay() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    byte[] toDraining = Bodies.transition(1, 1, SessionStatus.ACTIVE, SessionStatus.DRAINING, 4);
    WorkerClient.Res d = c.post(path(W1, s, "transition"), toDraining);
    TransitionResponse tr = TransitionResponse.parse(d.body());
    assertThat(tr.status()).isEqualTo(SessionStatus.DRAINING);
    assertThat(tr.version()).isEqualTo(2);
    assertThat(tr.leaseTtlMs()).isEqualTo(45_000).isGreaterThanOrEqualTo(3 * 10_000);
    assertThat(c.post(path(W1, s, "transition"), toDraining).body()).isEqualTo(d.body());

    h.clock.advance(10_000);
    HeartbeatResponse hr =
        HeartbeatResponse.parse(
            c.post(path(W1, s, "heartbeat"), Bodies.drainingHeartbeat(1, 2, 4)).body());
    assertThat(hr.status()).isEqualTo(SessionStatus.DRAINING);
    assertThat(hr.version()).isEqualTo(3);
    assertThat(hr.workAvailable()).isFalse();

    byte[] toOffline = Bodies.transition(1, 3, SessionStatus.DRAINING, SessionStatus.OFFLINE, 4);
    WorkerClient.Res o = c.post(path(W1, s, "transition"), toOffline);
    TransitionResponse otr = TransitionResponse.parse(o.body());
    assertThat(otr.status()).isEqualTo(SessionStatus.OFFLINE);
    assertThat(otr.leaseTtlMs()).isZero();
    assertThat(otr.version()).isEqualTo(4);
    // The exact retry of the offline transition still gets its answer.
    assertThat(c.post(path(W1, s, "transition"), toOffline).body()).isEqualTo(o.body());
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.drainingHeartbeat(1, 4, 4)),
        409,
        "session_not_active",
        Operation.HEARTBEAT);
  }

  @Test
  void activeToOfflineDirectly() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    TransitionResponse tr =
        TransitionResponse.parse(
            c.post(
                    path(W1, s, "transition"),
                    Bodies.transition(1, 1, SessionStatus.ACTIVE, SessionStatus.OFFLINE, 4))
                .body());
    assertThat(tr.status()).isEqualTo(SessionStatus.OFFLINE);
    assertThat(tr.leaseTtlMs()).isZero();
  }

  @Test
  void transitionFromAStatusTheServerDoesNotHoldIsVersionConflict() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    assertError(
        c.post(
            path(W1, s, "transition"),
            Bodies.transition(1, 1, SessionStatus.DRAINING, SessionStatus.OFFLINE, 4)),
        409,
        "version_conflict",
        Operation.TRANSITION);
  }

  @Test
  void adminFenceMakesTheSessionFenced() throws Exception {
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    assertThat(h.cp().fenceWorker(W1)).isTrue();
    h.clock.advance(10_000);
    assertError(
        c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)),
        409,
        "session_fenced",
        Operation.HEARTBEAT);
    RegisterResponse r =
        RegisterResponse.parse(
            c.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4)).body());
    assertThat(r.generation()).isEqualTo(3);
    assertThat(r.replaced().generation()).isEqualTo(1);
  }

  @Test
  void http11OnlyServerServesTheSameRules() throws Exception {
    try (Harness h1 = new Harness(io.ql3.worker.controlplane.ingress.Alpn.HTTP1_ONLY)) {
      WorkerClient c1 =
          h1.client(W1, HttpClient.Version.HTTP_2); // offers h2: the server picks http/1.1
      String s = Bodies.newId();
      WorkerClient.Res r = c1.post(path(W1, s, "register"), Bodies.register(4, 4));
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.version()).isEqualTo("HTTP_1_1");
      h1.clock.advance(10_000);
      assertThat(c1.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 4, 4)).status())
          .isEqualTo(200);
    }
  }

  @Test
  void h2IsNegotiatedWhenOffered() throws Exception {
    WorkerClient.Res r = c.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4));
    assertThat(r.version()).isEqualTo("HTTP_2");
  }
}
