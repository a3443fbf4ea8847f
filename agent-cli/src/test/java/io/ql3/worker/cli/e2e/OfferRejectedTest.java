package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An offer whose spec is invalid for its executor ({@code process} with an empty argv) is completed
 * {@code failed}/{@code permanent}/{@code offer_rejected} without being executed, while the other
 * offer of the same pull answer runs, and the session is kept. (The reference server never offers
 * an executor the worker did not advertise, so that variant of the rule cannot be produced here.)
 */
class OfferRejectedTest {
  @TempDir Path dir;

  @Test
  void anInvalidSpecIsRejectedWithoutRunningWhileItsNeighbourRuns() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      // Queued before the agent starts, so its first pull (page 2) gets both in ONE answer.
      String bad = cp.submit(1, "process", "{\"argv\":[],\"cwd\":null,\"env\":{}}").get(0);
      String good = cp.submit(1, "noop", "{}").get(0);
      try (InProcessAgent agent = InProcessAgent.start(cp.agentConfig("pull-page = 2"))) {
        ControlPlaneFixture.await(
            "both complete",
            Duration.ofSeconds(60),
            () ->
                cp.run(bad).state().equals("completed")
                    && cp.run(good).state().equals("completed"));
        String offer =
            cp.events.lines().stream()
                .filter(l -> l.startsWith("offer "))
                .findFirst()
                .orElseThrow();
        assertThat(offer)
            .as("one answer held both offers")
            .contains(bad + "#1")
            .contains(good + "#1");

        Views.RunView rejected = cp.run(bad);
        assertThat(rejected.outcome()).isEqualTo("failed");
        assertThat(rejected.completion())
            .contains("\"category\":\"permanent\"")
            .contains("\"code\":\"offer_rejected\"")
            .contains("\"exitCode\":null");
        assertThat(cp.run(good).outcome()).isEqualTo("succeeded");
        assertThat(agent.output())
            .contains("event=offer.rejected run=" + bad)
            .doesNotContain("event=run.started run=" + bad)
            .contains("event=run.started run=" + good);

        // The session is kept: the same one takes and runs more work.
        String later =
            cp.submit(
                    1,
                    "process",
                    "{\"argv\":[\"/bin/sh\",\"-c\",\"echo still here\"],\"cwd\":null,\"env\":{}}")
                .get(0);
        ControlPlaneFixture.await(
            "a later run completes",
            Duration.ofSeconds(60),
            () -> cp.run(later).state().equals("completed"));
        assertThat(cp.run(later).outcome()).isEqualTo("succeeded");
        List<Views.SessionView> sessions = cp.sessions();
        assertThat(sessions).hasSize(1);
        assertThat(sessions.get(0).status()).isEqualTo("active");
        assertThat(cp.run(later).completedBySession()).isEqualTo(sessions.get(0).sessionId());
        assertThat(cp.run(bad).completedBySession()).isEqualTo(sessions.get(0).sessionId());

        assertThat(agent.shutdown(Duration.ofSeconds(60))).isEqualTo(0);
        assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
      }
    }
  }
}
