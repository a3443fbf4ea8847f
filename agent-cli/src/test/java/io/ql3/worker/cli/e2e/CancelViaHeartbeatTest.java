package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server cancels a running {@code process} run: the request travels in a heartbeat's {@code
 * cancelRuns}, the run's process group gets SIGTERM (the shell's trap runs and its background child
 * dies too), and the run completes {@code cancelled}.
 */
class CancelViaHeartbeatTest {
  @TempDir Path dir;

  @Test
  void cancelRunsInAHeartbeatTerminatesTheProcessGroupAndCompletesCancelled() throws Exception {
    Settings fast = new Settings(5_000, 15_000, 15_000, 500, 64);
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, fast, false);
        InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
      agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
      String runId =
          cp.submit(
                  1,
                  "process",
                  "{\"argv\":[\"/bin/sh\",\"-c\",\"trap 'echo got-sigterm; exit 143' TERM;"
                      + " sleep 600 & echo sleeper=$!; wait\"],\"cwd\":null,\"env\":{}}")
              .get(0);
      agent.awaitOutput("event=run.started run=" + runId, Duration.ofSeconds(60));

      assertThat(cp.server.controlPlane().cancel(runId))
          .isEqualTo(ControlPlane.CancelResult.CANCEL_REQUESTED);
      // Delivered by the next heartbeat (every 5 s here), not by any other path.
      agent.awaitOutput("event=runs.cancel_requested runs=1", Duration.ofSeconds(30));
      ControlPlaneFixture.await(
          "the run completes",
          Duration.ofSeconds(60),
          () -> cp.run(runId).state().equals("completed"));

      Views.RunView run = cp.run(runId);
      assertThat(run.outcome()).as(run.toString()).isEqualTo("cancelled");
      assertThat(run.completion()).contains("\"code\":\"cancelled\"").contains("got-sigterm");
      // The whole group got the signal: the shell's background sleep is gone too.
      Matcher m = Pattern.compile("sleeper=(\\d+)").matcher(run.completion());
      assertThat(m.find()).as(run.completion()).isTrue();
      long sleeper = Long.parseLong(m.group(1));
      ControlPlaneFixture.await(
          "the background child is gone",
          Duration.ofSeconds(30),
          () -> ProcessHandle.of(sleeper).map(h -> !h.isAlive()).orElse(true));

      assertThat(cp.sessions()).hasSize(1);
      assertThat(agent.shutdown(Duration.ofSeconds(60))).isEqualTo(0);
      assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
    }
  }
}
