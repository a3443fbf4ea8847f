package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGHUP (systemctl reload) reloads and reopens, and never stops the agent or its session. */
class SighupTest {
  @TempDir Path dir;

  /** `nohup` (which ignores SIGHUP, then runs the agent) stands for any parent that ignores it. */
  @Test
  void anAgentStartedWithSighupIgnoredSaysReloadIsUnavailable() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      AgentProcess agent =
          AgentProcess.start(
              cp.agentConfig(""), "edge", dir.resolve("agent.log"), java.util.Map.of(), "nohup");
      try {
        agent.awaitOutput("event=agent.reload_unavailable", Duration.ofSeconds(30));
        assertThat(agent.output()).contains("SIGHUP does nothing");
        hup(agent); // ignored: the agent goes on
        ControlPlaneFixture.await(
            "registered",
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        assertThat(agent.process.isAlive()).isTrue();
        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
        assertThat(agent.output()).doesNotContain("event=agent.reloaded");
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  private static void hup(AgentProcess agent) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-HUP", Long.toString(agent.process.pid())).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
  }

  @Test
  void sighupReloadsAndKeepsTheSession() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"));
      try {
        ControlPlaneFixture.await(
            "registered",
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        // The agent inherits our signal dispositions: under `nohup mvn ...` it cannot catch SIGHUP.
        assumeFalse(
            agent.output().contains("event=agent.reload_unavailable"),
            "this test runs with SIGHUP ignored (nohup?): the agent cannot be reloaded by signal");
        String session = cp.sessions().get(0).sessionId();
        Path status = config.resolveSibling("status.json");
        ControlPlaneFixture.await(
            "status file", Duration.ofSeconds(30), () -> Files.exists(status));
        Files.delete(status); // e.g. a tmpfiles clean-up: reopened and rewritten on SIGHUP

        hup(agent);
        agent.awaitOutput(
            "event=agent.reloaded credentials_generation=1 token=ok", Duration.ofSeconds(30));
        ControlPlaneFixture.await(
            "status file rewritten", Duration.ofSeconds(30), () -> Files.exists(status));
        hup(agent);
        ControlPlaneFixture.await(
            "second reload",
            Duration.ofSeconds(30),
            () -> agent.output().split("event=agent.reloaded", -1).length == 3);

        assertThat(agent.process.isAlive()).isTrue();
        assertThat(cp.sessions())
            .singleElement()
            .satisfies(
                s -> {
                  assertThat(s.sessionId()).isEqualTo(session);
                  assertThat(s.status()).isEqualTo("active");
                });
        // One run still goes through after the reloads.
        String run = cp.submit(1, "noop", "{}").get(0);
        ControlPlaneFixture.await(
            "run completed", Duration.ofSeconds(60), () -> cp.run(run).state().equals("completed"));
        assertThat(agent.output()).doesNotContain("event=agent.drain");
        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }
}
