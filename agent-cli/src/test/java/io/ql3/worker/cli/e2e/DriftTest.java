package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drifting 200: the reference server's FaultPlan cannot make a 200 break the contract (its faults
 * are error statuses, drop-after-apply and delay), so the drift comes from a real situation
 * instead: the control plane restarts on the same address and PKI having lost its state. The agent
 * held generation 101; the new server registers it with generation 1, which is "not greater than
 * any generation held before" (contract section 6): drift. The agent must fail closed: treat the
 * session as fenced and never pull under it.
 */
class DriftTest {
  @TempDir Path dir;

  @Test
  void aRegisterAnswerWithAnOlderGenerationIsDriftAndNothingIsPulled() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      cp.server.controlPlane().seedGeneration(ControlPlaneFixture.WORKER, 100);
      try (InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
        agent.awaitOutput("registered generation 101", Duration.ofSeconds(60));
        int port = cp.server.ingressAddress().getPort();

        cp.close(); // the control plane goes away with its memory...
        ControlPlaneFixture.ServerEvents events = new ControlPlaneFixture.ServerEvents();
        ControlPlaneServer restarted =
            ControlPlaneServer.start(
                new ControlPlaneServer.Config(
                    cp.pki.dir(),
                    "127.0.0.1",
                    port,
                    0,
                    Alpn.H2_AND_HTTP1,
                    Settings.defaults(),
                    Clock.systemUTC(),
                    1,
                    events,
                    true));
        try {
          // ...and comes back on the same address: the old session is unknown there (409), the
          // agent
          // registers anew and is answered generation 1, then 2, ...: each one a drift.
          ControlPlaneFixture.await(
              "two registers on the restarted server",
              Duration.ofSeconds(60),
              () -> restarted.stats().snapshot().getOrDefault("register 200", 0L) >= 2);
          // The drift is logged before the session's transition to FENCED: wait for both.
          agent.awaitOutputAfter("event=session.drift", "to=FENCED", Duration.ofSeconds(30));

          int firstRegister = events.indexOf(0, "register ", "generation=1");
          assertThat(firstRegister).as(events.toString()).isNotNegative();
          List<String> pullsAfter =
              events.lines().subList(firstRegister, events.lines().size()).stream()
                  .filter(l -> l.startsWith("answer ") && l.contains(" pull "))
                  .toList();
          assertThat(pullsAfter).as("no pull under a drifted session\n" + events).isEmpty();
          // A pull of a wrongly accepted session would be parked (long poll), not answered: look
          // there too.
          assertThat(restarted.controlPlane().parkedCount()).isZero();
          String out = agent.output();
          assertThat(agent.count("to=ACTIVE"))
              .as(out)
              .isEqualTo(1); // only the first server's session

          assertThat(agent.shutdown(Duration.ofSeconds(60))).isZero();
        } finally {
          restarted.close();
        }
      }
    }
  }
}
