package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.completePath;
import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance auditor flags each kind of client contract violation, and a compliant client gets
 * none.
 */
class AuditorTest {
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

  private String register(int max) throws Exception {
    String s = Bodies.newId();
    assertThat(c.post(path(W1, s, "register"), Bodies.register(max, max)).status()).isEqualTo(200);
    return s;
  }

  @Test
  void compliantLifecycleHasZeroViolations() throws Exception {
    String s = register(2);
    String run = h.submit(1, "noop", "{}", null).get(0);
    assertThat(c.post(path(W1, s, "pull"), Bodies.pull(1, 2, Bodies.newId(), 0)).status())
        .isEqualTo(200);
    h.clock.advance(9_600);
    assertThat(c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 1, 2)).status())
        .isEqualTo(200);
    assertThat(c.post(completePath(W1, s, run), Bodies.succeeded(1, 1)).status()).isEqualTo(200);
    assertThat(c.post(path(W1, s, "pull"), Bodies.pull(1, 2, Bodies.newId(), 0)).status())
        .isEqualTo(200);
    assertThat(
            c.post(
                    path(W1, s, "transition"),
                    Bodies.transition(1, 2, SessionStatus.ACTIVE, SessionStatus.DRAINING, 2))
                .status())
        .isEqualTo(200);
    h.clock.advance(10_000);
    assertThat(c.post(path(W1, s, "heartbeat"), Bodies.drainingHeartbeat(1, 3, 2)).status())
        .isEqualTo(200);
    assertThat(
            c.post(
                    path(W1, s, "transition"),
                    Bodies.transition(1, 4, SessionStatus.DRAINING, SessionStatus.OFFLINE, 2))
                .status())
        .isEqualTo(200);
    assertThat(h.server.auditor().violations()).isEmpty();
  }

  @Test
  void secondConnectionOfAWorker() throws Exception {
    register(2);
    WorkerClient second = h.client(W1);
    assertThat(second.post(path(W1, Bodies.newId(), "register"), Bodies.register(2, 2)).status())
        .isEqualTo(200);
    assertThat(h.violations(ViolationKind.CONCURRENT_CONNECTIONS)).isEqualTo(1);
    assertThat(h.server.connections().open()).hasSize(2);
  }

  @Test
  void aConnectionSilentForAHeartbeatIntervalIsClosedNotFlaggedWhenTheWorkerReconnects()
      throws Exception {
    // After a silent partition no FIN or RST reaches the server; the client's new connection is
    // not a second one (found by the soak: a blackhole longer than the lease).
    register(2);
    h.clock.advance(Harness.SETTINGS.heartbeatIntervalMs());
    WorkerClient second = h.client(W1);
    assertThat(second.post(path(W1, Bodies.newId(), "register"), Bodies.register(2, 2)).status())
        .isEqualTo(200);
    assertThat(h.violations(ViolationKind.CONCURRENT_CONNECTIONS)).isZero();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (h.server.connections().open().size() > 1 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(h.server.connections().open()).hasSize(1);
  }

  @Test
  void heartbeatBeforeTheIntervalMinusTolerance() throws Exception {
    String s = register(2);
    h.clock.advance(9_499);
    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 2, 2));
    assertThat(h.violations(ViolationKind.EARLY_HEARTBEAT)).isEqualTo(1);
    h.clock.advance(9_500);
    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 2, 2, 2));
    assertThat(h.violations(ViolationKind.EARLY_HEARTBEAT)).isEqualTo(1);
  }

  @Test
  void twoSessionRequestsInFlightAtOnce() throws Exception {
    String s = register(2);
    h.server.faults().add("heartbeat", Fault.Action.DELAY, 0, null, -1, 2_000, 1);
    h.clock.advance(10_000);
    CompletableFuture<WorkerClient.Res> slow =
        c.postAsync(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 2, 2));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (h.events.stream().noneMatch(e -> e.contains("answering after"))) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
    c.post(
        path(W1, s, "transition"),
        Bodies.transition(1, 2, SessionStatus.ACTIVE, SessionStatus.DRAINING, 2));
    assertThat(slow.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(h.violations(ViolationKind.OVERLAPPING_SESSION_REQUESTS)).isEqualTo(1);
  }

  @Test
  void http11PipeliningIsFlaggedAndTheConnectionClosed() throws Exception {
    byte[] reg = Bodies.register(2, 2);
    try (javax.net.ssl.SSLSocket socket = c.rawHttp1()) {
      java.io.OutputStream out = socket.getOutputStream();
      String s1 = Bodies.newId();
      String s2 = Bodies.newId();
      // Two requests in one write: the second arrives before the first is answered.
      java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream();
      both.writeBytes(c.rawRequest(path(W1, s1, "register"), reg, reg.length).getBytes());
      both.writeBytes(reg);
      both.writeBytes(c.rawRequest(path(W1, s2, "register"), reg, reg.length).getBytes());
      both.writeBytes(reg);
      out.write(both.toByteArray());
      out.flush();
      java.io.InputStream in = socket.getInputStream();
      try {
        WorkerClient.readHttp1(in);
        WorkerClient.readHttp1(in);
      } catch (java.io.IOException closed) {
        // expected: the server closes the connection on pipelining
      }
    }
    assertThat(h.violations(ViolationKind.OVERLAPPING_SESSION_REQUESTS)).isGreaterThanOrEqualTo(1);
  }

  @Test
  void pullWhileDraining() throws Exception {
    String s = register(2);
    c.post(
        path(W1, s, "transition"),
        Bodies.transition(1, 1, SessionStatus.ACTIVE, SessionStatus.DRAINING, 2));
    SessionRulesTest.assertError(
        c.post(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 0)),
        409,
        "session_not_active",
        io.ql3.worker.contract.Operation.PULL);
    assertThat(h.violations(ViolationKind.PULL_NOT_ACTIVE)).isEqualTo(1);
  }

  @Test
  void pullAboveTheSlotsTheSessionCanTake() throws Exception {
    String s = register(2);
    h.submit(2, "noop", "{}", null);
    c.post(path(W1, s, "pull"), Bodies.pull(1, 2, Bodies.newId(), 0));
    assertThat(h.violations(ViolationKind.PULL_ABOVE_SLOTS)).isZero();
    c.post(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 0));
    assertThat(h.violations(ViolationKind.PULL_ABOVE_SLOTS)).isEqualTo(1);
  }

  @Test
  void theIdenticalRetryOfAPullThatFilledTheSlotsIsNotAboveThem() throws Exception {
    // The retry of a pull whose answer was lost: its maxRuns was within the slots when first sent;
    // what fills them now is that pull's own offers (found by the soak: drop-after-apply on pull).
    String s = register(2);
    h.submit(2, "noop", "{}", null);
    byte[] pull = Bodies.pull(1, 2, Bodies.newId(), 0);
    c.post(path(W1, s, "pull"), pull);
    c.post(path(W1, s, "pull"), pull);
    assertThat(h.violations(ViolationKind.PULL_ABOVE_SLOTS)).isZero();
  }

  @Test
  void nonCanonicalBodyAndUnknownPath() throws Exception {
    String s = register(2);
    h.clock.advance(10_000);
    byte[] pretty = (new String(Bodies.heartbeat(1, 1, 2, 2)) + " ").getBytes();
    assertThat(c.post(path(W1, s, "heartbeat"), pretty).status()).isEqualTo(400);
    assertThat(h.violations(ViolationKind.NON_CANONICAL_BODY)).isEqualTo(1);
    assertThat(c.post(path(W1, s, "status"), new byte[0]).status()).isEqualTo(404);
    assertThat(h.violations(ViolationKind.UNKNOWN_PATH)).isEqualTo(1);
  }

  @Test
  void requestsOnASessionAfterItWasAnswered409() throws Exception {
    String s1 = register(2);
    register(2);
    h.clock.advance(10_000);
    assertThat(c.post(path(W1, s1, "heartbeat"), Bodies.heartbeat(1, 1, 2, 2)).status())
        .isEqualTo(409);
    assertThat(h.violations(ViolationKind.REQUEST_AFTER_FENCE)).isZero();
    h.clock.advance(10_000);
    assertThat(c.post(path(W1, s1, "pull"), Bodies.pull(1, 1, Bodies.newId(), 0)).status())
        .isEqualTo(409);
    assertThat(h.violations(ViolationKind.REQUEST_AFTER_FENCE)).isEqualTo(1);
  }
}
