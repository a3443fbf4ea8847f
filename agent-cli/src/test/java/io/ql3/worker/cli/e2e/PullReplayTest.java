package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outcome-unknown pull and complete: the server applies a pull (leasing a run) and drops the
 * connection without answering; the agent resends the same pullId, gets the same offer again (the
 * server's replay) and runs it exactly once. Its completion is applied and dropped too; the
 * identical resend is answered {@code duplicate}.
 *
 * <p>Not covered here: a re-offer of an attempt the agent already COMPLETED (the journal's dedup
 * window). The reference server replays only offers still leased, so it cannot produce one.
 */
class PullReplayTest {
  @TempDir Path dir;

  @Test
  void aReplayedOfferRunsOnceAndAResentCompletionIsADuplicate() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      cp.server.faults().add("pull", Fault.Action.DROP_AFTER_APPLY, 0, null, 0, 0, 1);
      cp.server.faults().add("complete", Fault.Action.DROP_AFTER_APPLY, 0, null, 0, 0, 1);
      Path ran = dir.resolve("executions.txt");
      try (InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        String runId =
            cp.submit(
                    1,
                    "process",
                    "{\"argv\":[\"/bin/sh\",\"-c\",\"echo \\\"$QL3_RUN_ID $QL3_ATTEMPT\\\" >> '"
                        + ran
                        + "'; echo ran\"],\"cwd\":null,\"env\":{}}")
                .get(0);
        ControlPlaneFixture.await(
            "the run completes",
            Duration.ofSeconds(60),
            () -> cp.run(runId).state().equals("completed"));
        agent.awaitOutput("event=completion.delivered run=" + runId, Duration.ofSeconds(60));

        String events = cp.events.toString();
        assertThat(cp.events.indexOf(0, "fault", "applied pull then dropped"))
            .as(events)
            .isNotNegative();
        assertThat(cp.events.indexOf(0, "pull-replay", "offers=1")).as(events).isNotNegative();
        assertThat(cp.events.indexOf(0, "fault", "applied complete then dropped"))
            .as(events)
            .isNotNegative();
        assertThat(cp.server.faults().pending()).isEmpty();

        // Executed exactly once: one run.started line, one line in the file the run appends to.
        assertThat(agent.count("event=run.started run=" + runId)).as(agent.output()).isEqualTo(1);
        assertThat(Files.readAllLines(ran)).containsExactly(runId + " 1");
        assertThat(cp.run(runId).outcome()).isEqualTo("succeeded");
        assertThat(agent.output())
            .contains(
                "event=completion.delivered run=" + runId + " attempt=1 disposition=duplicate");
        assertThat(cp.sessions()).hasSize(1);

        assertThat(agent.shutdown(Duration.ofSeconds(60))).isZero();
        assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
      }
    }
  }
}
