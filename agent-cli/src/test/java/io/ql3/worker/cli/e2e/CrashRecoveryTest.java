package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real agent process while a run is running, then a restart: the journal says
 * the run started and has no result, so the agent reports it {@code uncertain} to the session it
 * was offered under BEFORE registering a new session, and never runs it again.
 */
class CrashRecoveryTest {
  @TempDir Path dir;

  @Test
  void killDuringARunThenRestartReportsItUncertainBeforeTheNewRegister() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      AgentProcess first = AgentProcess.start(config, "edge", dir.resolve("agent-1.log"));
      OptionalLong runPid = OptionalLong.empty();
      try {
        first.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        String runId =
            cp.submit(
                    1,
                    "process",
                    "{\"argv\":[\"/bin/sh\",\"-c\",\"echo started; sleep 600\"],\"cwd\":null,\"env\":{}}")
                .get(0);
        first.awaitOutput("event=run.started run=" + runId, Duration.ofSeconds(60));
        runPid = first.runPid(runId);
        String oldSession = cp.run(runId).lease().sessionId();

        first.kill9();

        AgentProcess second = AgentProcess.start(config, "edge", dir.resolve("agent-2.log"));
        try {
          second.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
          String out = second.output();
          assertThat(out)
              .contains(
                  "event=journal.reconciled uncertain=1 not_started=0 completions_to_deliver=1");
          int delivered = out.indexOf("event=completion.delivered run=" + runId);
          int registering = out.indexOf("to=REGISTERING");
          assertThat(delivered).as(out).isGreaterThanOrEqualTo(0);
          assertThat(delivered)
              .as("uncertain completion before the new register\n" + out)
              .isLessThan(registering);

          Views.RunView run = cp.run(runId);
          assertThat(run.state()).isEqualTo("quarantined");
          assertThat(run.outcome()).isEqualTo("uncertain");
          assertThat(run.completedBySession()).isEqualTo(oldSession);
          assertThat(run.completion()).contains("\"code\":\"outcome_uncertain\"");
          // Never run again: no second run.started for it in the new process.
          assertThat(out).doesNotContain("event=run.started run=" + runId);

          List<Views.SessionView> sessions = cp.sessions();
          assertThat(sessions)
              .extracting(Views.SessionView::generation)
              .containsExactlyInAnyOrder(1L, 2L);

          assertThat(second.terminate(Duration.ofSeconds(60))).as(second.output()).isEqualTo(0);
          assertThat(second.output()).contains("from=DRAINING to=OFFLINE");
        } finally {
          second.process.destroyForcibly();
        }
      } finally {
        first.process.destroyForcibly();
        // The killed agent's child leads its own process group: end the group (systemd would).
        runPid.ifPresent(
            pid ->
                ProcessHandle.of(pid)
                    .ifPresent(
                        h -> {
                          h.descendants().forEach(ProcessHandle::destroyForcibly);
                          h.destroyForcibly();
                        }));
      }
    }
  }
}
