package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execution.isolation = "required"} end to end against the reference control plane: with the
 * run account present, a full life whose runs cannot read the agent's key, token or journal; with
 * it missing, exit 78 before anything is sent. The account switch needs root (CI is root).
 */
class IsolationEndToEndTest {

  @TempDir Path dir;

  private static boolean root() throws Exception {
    return Files.readAllLines(Path.of("/proc/self/status")).stream()
        .anyMatch(l -> l.matches("Uid:\\s+0\\s+0\\s+0\\s+0"));
  }

  @Test
  void requiredIsolationRunsWorkThatCannotReachTheAgentsSecrets() throws Exception {
    assumeTrue(root(), "switching runs to another account needs root (CI runs as root)");
    Files.setAttribute(dir, "unix:mode", 0711);
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      long base = 4_000_000 + (ProcessHandle.current().pid() % 100_000) * 8;
      Path config = cp.agentConfig("isolation = \"required\"\nrun-user = " + base);
      Files.setAttribute(config.getParent(), "unix:mode", 0711);
      Path key = ControlPlaneFixture.configuredPath(config, "private-key");
      Path token = ControlPlaneFixture.configuredPath(config, "token");
      Path journal = config.resolveSibling("journal");
      try (InProcessAgent agent = InProcessAgent.start(config)) {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        assertThat(agent.output())
            .contains("event=isolation.active")
            .contains("user_switch=")
            .contains("uids " + base + "-" + (base + 1));
        String probe =
            "id -u; cat '"
                + key
                + "' 2>&1; cat '"
                + token
                + "' 2>&1; ls '"
                + journal
                + "' 2>&1; cat '"
                + config.resolveSibling("status.json")
                + "' 2>&1; echo x > '"
                + journal
                + "/planted' 2>&1; exit 0";
        List<String> ids =
            cp.submit(
                2,
                "process",
                "{\"argv\":[\"/bin/sh\",\"-c\",\""
                    + probe.replace("\"", "\\\"")
                    + "\"],\"cwd\":null,\"env\":{}}");
        ControlPlaneFixture.await("runs complete", Duration.ofSeconds(60), () -> cp.completed(ids));
        for (String id : ids) {
          Views.RunView v = cp.run(id);
          assertThat(v.outcome()).as(v.toString()).isEqualTo("succeeded");
          assertThat(v.completion())
              .containsPattern("\"outputTail\":\"(" + base + "|" + (base + 1) + ")\\\\n")
              .contains("client.key: Permission denied")
              .contains("token: Permission denied")
              .contains("journal': Permission denied")
              .contains("status.json: Permission denied")
              .doesNotContain("PRIVATE KEY")
              .doesNotContain(Files.readString(token).strip());
        }
        assertThat(journal.resolve("planted")).doesNotExist();
        assertThat(agent.shutdown(Duration.ofSeconds(60))).isZero();
      }
      assertThat(cp.sessions()).allMatch(s -> s.status().equals("offline"));
      assertThat(cp.server.auditor().violations()).isEmpty();
    }
  }

  @Test
  void requiredIsolationWithARunUidRangeThatIsTakenExits78AndSendsNothing() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      // 65533-65534 (edge: 2 slots) holds nobody(65534)
      Path config = cp.agentConfig("isolation = \"required\"\nrun-user = 65533");
      java.util.Map<String, Long> before = cp.server.stats().snapshot();
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"));
      try {
        assertThat(agent.process.waitFor(60, TimeUnit.SECONDS)).as(agent.output()).isTrue();
        assertThat(agent.process.exitValue()).as(agent.output()).isEqualTo(78);
      } finally {
        agent.process.destroyForcibly();
        System.out.println(agent.output());
      }
      assertThat(agent.output())
          .contains("event=isolation.missing")
          .contains("run uids 65533-65534")
          .contains("nobody(65534)");
      assertThat(cp.server.stats().snapshot()).isEqualTo(before);
      assertThat(cp.answered("register")).isZero();
      assertThat(cp.answered("pull")).isZero();
    }
  }
}
