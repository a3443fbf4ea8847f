package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.controlplane.state.Fault;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Injected faults: error answers that apply nothing, apply-then-drop (outcome unknown), closing
 * connections.
 */
class FaultsTest {
  private Harness h;
  private WorkerClient c;
  private String s;

  @BeforeEach
  void start() throws Exception {
    h = new Harness();
    c = h.client(W1);
    s = Bodies.newId();
    assertThat(c.post(path(W1, s, "register"), Bodies.register(2, 2)).status()).isEqualTo(200);
    h.clock.advance(10_000);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  @Test
  void errorFaultAnswersWithoutApplying() throws Exception {
    h.server.faults().add("heartbeat", Fault.Action.ERROR, 503, "unavailable", 3, 0, 2);
    byte[] hb = Bodies.heartbeat(1, 1, 2, 2);
    for (int i = 0; i < 2; i++) {
      WorkerClient.Res r = c.post(path(W1, s, "heartbeat"), hb);
      assertThat(r.status()).isEqualTo(503);
      assertThat(ErrorBody.parse(503, Operation.HEARTBEAT, r.body()).code().wire())
          .isEqualTo("unavailable");
    }
    assertThat(HeartbeatResponse.parse(c.post(path(W1, s, "heartbeat"), hb).body()).version())
        .isEqualTo(2);
    assertThat(h.server.faults().pending()).isEmpty();
  }

  @Test
  void statusOutsideTheTableHasAnEmptyBody() throws Exception {
    h.server.faults().add(null, Fault.Action.ERROR, 502, null, -1, 0, 1);
    WorkerClient.Res r = c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 2, 2));
    assertThat(r.status()).isEqualTo(502);
    assertThat(r.body()).isEmpty();
  }

  @Test
  void faultsWithACodeOfAnotherStatusAreRefused() {
    assertThatThrownBy(
            () ->
                h.server
                    .faults()
                    .add("heartbeat", Fault.Action.ERROR, 409, "unavailable", -1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                h.server
                    .faults()
                    .add("heartbeat", Fault.Action.ERROR, 409, "run_not_leased", -1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> h.server.faults().add("status", Fault.Action.DELAY, 0, null, -1, 10, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void dropAfterApplyThenTheIdenticalRetryIsReplayed() throws Exception {
    h.server.faults().add("heartbeat", Fault.Action.DROP_AFTER_APPLY, 0, null, -1, 0, 1);
    byte[] hb = Bodies.heartbeat(1, 1, 2, 2);
    assertThatThrownBy(() -> c.post(path(W1, s, "heartbeat"), hb)).isInstanceOf(IOException.class);
    assertThat(h.cp().workers().get(0).sessions().get(0).version()).isEqualTo(2);
    awaitNoOpenConnection();
    WorkerClient retry = h.client(W1);
    HeartbeatResponse r = HeartbeatResponse.parse(retry.post(path(W1, s, "heartbeat"), hb).body());
    assertThat(r.version()).isEqualTo(2);
    assertThat(h.cp().workers().get(0).sessions().get(0).version()).isEqualTo(2);
  }

  @Test
  void closeAllConnections() throws Exception {
    assertThat(h.server.connections().open()).hasSize(1);
    assertThat(h.server.connections().closeAll()).isEqualTo(1);
    awaitNoOpenConnection();
    assertThat(h.server.connections().recentlyClosed()).hasSize(1);
  }

  private void awaitNoOpenConnection() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!h.server.connections().open().isEmpty()) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
