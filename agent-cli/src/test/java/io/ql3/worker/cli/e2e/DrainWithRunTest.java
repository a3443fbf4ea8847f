package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a real {@code ql3-worker run} process while a run is running: the session goes {@code
 * draining} with 0 capacity, heartbeats go on, the run finishes and is completed, then {@code
 * offline} and exit 0. With a short {@code drain-timeout-ms} the run is cancelled cooperatively and
 * completed {@code cancelled} (code {@code drain_timeout}) before {@code offline}.
 */
class DrainWithRunTest {
  private static final Settings FAST = new Settings(5_000, 15_000, 15_000, 500, 64);

  @TempDir Path dir;

  @Test
  void sigtermWaitsForTheRunWhileHeartbeatingThenGoesOffline() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FAST, false)) {
      AgentProcess agent = AgentProcess.start(cp.agentConfig(""), "edge", dir.resolve("agent.log"));
      OptionalLong pid = OptionalLong.empty();
      try {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        Path release = dir.resolve("release");
        String runId =
            cp.submit(
                    1,
                    "process",
                    "{\"argv\":[\"/bin/sh\",\"-c\",\"while [ ! -e '"
                        + release
                        + "' ]; do sleep 0.1; done; echo finished after drain\"],\"cwd\":null,\"env\":{}}")
                .get(0);
        agent.awaitOutput("event=run.started run=" + runId, Duration.ofSeconds(60));
        pid = agent.runPid(runId);

        agent.process.destroy(); // SIGTERM
        agent.awaitOutput("from=ACTIVE to=DRAINING", Duration.ofSeconds(30));
        Views.SessionView draining = cp.sessions().get(0);
        assertThat(draining.status()).isEqualTo("draining");
        assertThat(draining.availableSlots()).isZero();
        long versionAtDrain = draining.version();
        // The cadence keeps heartbeating the draining session while the run runs.
        ControlPlaneFixture.await(
            "a heartbeat while draining",
            Duration.ofSeconds(30),
            () -> cp.sessions().get(0).version() > versionAtDrain);
        assertThat(cp.sessions().get(0).status()).isEqualTo("draining");
        assertThat(cp.sessions().get(0).availableSlots()).isZero();
        assertThat(agent.process.isAlive()).isTrue();
        assertThat(cp.run(runId).state()).isEqualTo("leased");

        Files.writeString(release, "go");
        assertThat(agent.process.waitFor(60, TimeUnit.SECONDS)).as(agent.output()).isTrue();
        assertThat(agent.process.exitValue()).as(agent.output()).isZero();

        Views.RunView run = cp.run(runId);
        assertThat(run.outcome()).isEqualTo("succeeded");
        assertThat(run.completion()).contains("finished after drain");
        assertThat(run.completedBySession()).isEqualTo(draining.sessionId());
        assertThat(cp.sessions()).hasSize(1);
        assertThat(cp.sessions().get(0).status()).isEqualTo("offline");
        String out = agent.output();
        int delivered = out.indexOf("event=completion.delivered run=" + runId);
        assertThat(delivered)
            .as(out)
            .isPositive()
            .isLessThan(out.indexOf("from=DRAINING to=OFFLINE"));
        assertThat(cp.server.auditor().violations()).as(out).isEmpty();
      } finally {
        cleanUp(agent, pid);
      }
    }
  }

  @Test
  void drainTimeoutCancelsTheRunCooperativelyThenGoesOffline() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FAST, false)) {
      AgentProcess agent =
          AgentProcess.start(
              cp.agentConfig("drain-timeout-ms = 3000"), "edge", dir.resolve("agent.log"));
      OptionalLong pid = OptionalLong.empty();
      try {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        String runId =
            cp.submit(
                    1,
                    "process",
                    "{\"argv\":[\"/bin/sh\",\"-c\",\"trap 'echo got-sigterm; exit 143' TERM;"
                        + " sleep 600 & wait\"],\"cwd\":null,\"env\":{}}")
                .get(0);
        agent.awaitOutput("event=run.started run=" + runId, Duration.ofSeconds(60));
        pid = agent.runPid(runId);

        agent.process.destroy(); // SIGTERM
        assertThat(agent.process.waitFor(60, TimeUnit.SECONDS)).as(agent.output()).isTrue();
        assertThat(agent.process.exitValue()).as(agent.output()).isZero();

        Views.RunView run = cp.run(runId);
        assertThat(run.outcome()).as(run.toString()).isEqualTo("cancelled");
        assertThat(run.completion()).contains("\"code\":\"drain_timeout\"").contains("got-sigterm");
        assertThat(cp.sessions()).hasSize(1);
        assertThat(cp.sessions().get(0).status()).isEqualTo("offline");
        String out = agent.output();
        assertThat(out).contains("event=runs.cancel reason=\"drain timeout\"");
        int delivered = out.indexOf("event=completion.delivered run=" + runId);
        assertThat(delivered)
            .as(out)
            .isPositive()
            .isLessThan(out.indexOf("from=DRAINING to=OFFLINE"));
        // The drain starts before the timeout cancels; the session's own transition to draining
        // waits for its answer, so it is not ordered against the cancel.
        assertThat(out.indexOf("event=agent.drain "))
            .as(out)
            .isNotNegative()
            .isLessThan(out.indexOf("event=runs.cancel"));
        assertThat(cp.server.auditor().violations()).as(out).isEmpty();
      } finally {
        cleanUp(agent, pid);
      }
    }
  }

  private static void cleanUp(AgentProcess agent, OptionalLong runPid) {
    agent.process.destroyForcibly();
    System.out.println(agent.output()); // the child's lines in the test's report
    runPid.ifPresent(
        p ->
            ProcessHandle.of(p)
                .ifPresent(
                    h -> {
                      h.descendants().forEach(ProcessHandle::destroyForcibly);
                      h.destroyForcibly();
                    }));
  }
}
