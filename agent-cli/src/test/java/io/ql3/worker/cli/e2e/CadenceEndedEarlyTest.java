package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cadence runs on the agent's main thread. If it ends while the agent has not stopped (here: an
 * interrupt of that thread, the one way it can end early), the agent does not hang nor go on
 * without its timer: it logs why, releases the journal and exits 70 (EX_SOFTWARE), so systemd
 * restarts it. A second agent on the same state directory in the same JVM then owns the journal (a
 * lock still held would refuse it) and its runs complete.
 */
class CadenceEndedEarlyTest {
  @TempDir Path dir;

  @Test
  void anInterruptedMainThreadExits70WithTheJournalReleased() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      try (InProcessAgent first = InProcessAgent.start(config)) {
        first.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        List<String> ids = cp.submit(2, "noop", "{}");
        ControlPlaneFixture.await("runs complete", Duration.ofSeconds(60), () -> cp.completed(ids));

        cadenceThread().interrupt();

        assertThat(first.exit.get(60, TimeUnit.SECONDS)).as(first.output()).isEqualTo(70);
        assertThat(first.output())
            .contains("event=agent.cadence_ended")
            .contains("event=journal.released")
            .contains("event=agent.exit code=70");
      }

      try (InProcessAgent second = InProcessAgent.start(config)) {
        second.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        List<String> ids = cp.submit(1, "noop", "{}");
        ControlPlaneFixture.await(
            "the second agent's run completes",
            Duration.ofSeconds(60),
            () -> cp.run(ids.get(0)).state().equals("completed"));
        assertThat(second.shutdown(Duration.ofSeconds(60))).isZero();
        assertThat(second.output()).contains("event=journal.open").doesNotContain("journal.owned");
      }
      assertThat(cp.server.auditor().violations()).isEmpty();
    }
  }

  /** The agent's main thread carries the cadence's name while the cadence runs on it. */
  private static Thread cadenceThread() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("ql3-cadence"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no thread named ql3-cadence"));
  }
}
