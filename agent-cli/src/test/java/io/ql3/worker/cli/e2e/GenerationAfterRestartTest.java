package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a restart of the AGENT, the register drift check starts from the generation in its journal,
 * not from nothing. The first agent process registers generation 101 and stops cleanly; the control
 * plane then restarts having lost its state; a second agent process on the same journal is answered
 * generation 1, which is not greater than the journaled 101 (contract section 6): drift, never an
 * active session, never a pull.
 */
class GenerationAfterRestartTest {
  @TempDir Path dir;

  @Test
  void aRegisterAnswerNotAboveTheJournaledGenerationIsDriftAfterAnAgentRestart() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      cp.server.controlPlane().seedGeneration(ControlPlaneFixture.WORKER, 100);
      Path config = cp.agentConfig("");
      try (InProcessAgent first = InProcessAgent.start(config)) {
        first.awaitOutput("registered generation 101", Duration.ofSeconds(60));
        assertThat(first.shutdown(Duration.ofSeconds(60))).isZero();
      }
      int port = cp.server.ingressAddress().getPort();
      cp.close();

      ControlPlaneFixture.ServerEvents events = new ControlPlaneFixture.ServerEvents();
      try (ControlPlaneServer restarted =
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
          InProcessAgent second = InProcessAgent.start(config)) {
        // The drift is logged before the session's transition to FENCED: wait for both.
        second.awaitOutputAfter("event=session.drift", "to=FENCED", Duration.ofSeconds(60));
        assertThat(events.indexOf(0, "register ", "generation=1"))
            .as(events.toString())
            .isNotNegative();
        String out = second.output();
        assertThat(second.count("to=ACTIVE")).as(out).isZero();
        assertThat(
                events.lines().stream()
                    .filter(l -> l.startsWith("answer ") && l.contains(" pull ")))
            .as("no pull under a drifted session\n" + events)
            .isEmpty();
        assertThat(restarted.controlPlane().parkedCount()).isZero();
        assertThat(second.shutdown(Duration.ofSeconds(60))).isZero();
      }
    }
  }
}
