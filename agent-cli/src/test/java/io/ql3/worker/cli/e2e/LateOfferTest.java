package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An offer that arrives after its session ended must never run (contract section 7, rule 4: stop
 * pulling at once on local lease expiry; the server reclaims that session's runs). Over http/1.1 a
 * pull cannot be aborted and blocks the one connection: the server applies the pull (leasing the
 * run to the session) and answers only after the local lease of 15 s has passed, so no heartbeat
 * could renew it. The agent must complete that attempt {@code cancelled} with the transient code
 * {@code not_started} (so the server may offer it again: its retry policy decides) instead of
 * running it.
 */
class LateOfferTest {
  @TempDir Path dir;

  @Test
  void anOfferAnsweredAfterTheLocalLeaseEndedIsNeverRun() throws Exception {
    Settings settings = new Settings(5_000, 15_000, 15_000, 500, 64);
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.HTTP1_ONLY, settings, true)) {
      String runId = cp.submit(1, "noop", "{}").get(0);
      // The agent's first pull is applied at once and answered 20 s later.
      cp.server.faults().add("pull", Fault.Action.DELAY, 0, null, 0, 20_000, 1);
      try (InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
        agent.awaitOutput("to=EXPIRED", Duration.ofSeconds(60));
        agent.awaitOutput(
            "event=completion.delivered run=" + runId + " attempt=1", Duration.ofSeconds(60));
        assertThat(agent.output()).doesNotContain("event=run.started run=" + runId);
        var run = cp.run(runId);
        assertThat(run.outcome()).isEqualTo("cancelled");
        assertThat(run.completion())
            .contains("\"code\":\"not_started\"")
            .contains("\"category\":\"transient\"");
        // Then a new session: the late answer is settled, so registering again is allowed.
        agent.awaitOutput("generation=2", Duration.ofSeconds(60));
      }
    }
  }
}
