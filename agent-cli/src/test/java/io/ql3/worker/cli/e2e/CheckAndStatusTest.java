package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.cli.Main;
import io.ql3.worker.controlplane.ingress.Alpn;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check} and {@code status} as an operator's scripts use them, with real credentials and a
 * real agent.
 */
class CheckAndStatusTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int cli(String... args) {
    out.reset();
    err.reset();
    return Main.execute(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static Path withProfile(Path config, String profile) throws Exception {
    String text = Files.readString(config);
    Files.writeString(
        config,
        text.replaceFirst("enabled = true\n", "enabled = true\nprofile = \"" + profile + "\"\n"));
    return config;
  }

  @Test
  void checkTakesTheProfileFromTheConfigurationAndRefusesADisagreeingOne() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      assertThat(cli("check", "--config", config.toString())).as(err()).isEqualTo(78);
      assertThat(err()).contains("profile").contains("is not set");

      withProfile(config, "edge");
      assertThat(cli("check", "--config", config.toString())).as(err()).isZero();
      assertThat(out()).contains("profile edge").contains("directories: ok (journal.dir ");
      assertThat(cli("check", "--profile", "node", "--config", config.toString())).isEqualTo(78);
      assertThat(err()).contains("is \"edge\" but --profile node was given");
    }
  }

  @Test
  void checkRefusesAJournalDirectoryThatCannotBeCreated() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      Files.writeString(config.resolveSibling("not-a-dir"), "a file");
      Files.writeString(
          config,
          Files.readString(config).replace("dir = \"journal\"", "dir = \"not-a-dir/journal\""));
      assertThat(cli("check", "--profile", "edge", "--config", config.toString())).isEqualTo(73);
      assertThat(err())
          .contains("directories: journal.dir ")
          .contains("not-a-dir is not a directory");
    }
  }

  @Test
  void checkRefusesAStatusFileInADirectoryItCannotWrite() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      Files.writeString(config.resolveSibling("not-a-dir"), "a file");
      Files.writeString(
          config,
          Files.readString(config)
              .replace("file = \"status.json\"", "file = \"not-a-dir/status.json\""));
      assertThat(cli("check", "--profile", "edge", "--config", config.toString())).isEqualTo(73);
      assertThat(err())
          .contains("directories: status.file's directory ")
          .contains("not-a-dir is not a directory");
    }
  }

  /** systemd's RuntimeDirectory= makes the metrics directory at start: not there before is fine. */
  @Test
  void aMetricsDirectoryNotThereYetIsANoteNotAFailure() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      Files.writeString(
          config,
          Files.readString(config)
              .replace("file = \"ql3-worker.prom\"", "file = \"not-yet/ql3-worker.prom\""));
      assertThat(cli("check", "--profile", "edge", "--config", config.toString()))
          .as(err())
          .isZero();
      assertThat(out()).contains("directories: note: metrics.file's directory ");
    }
  }

  @Test
  void statusWaitsUntilReadyAndSaysWhenTheAgentIsGone() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = withProfile(cp.agentConfig(""), "edge");
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"));
      try {
        assertThat(cli("status", "--config", config.toString(), "--wait-ready=120"))
            .as(err() + agent.output())
            .isZero();
        assertThat(out()).containsPattern("sessionState +active");
        assertThat(cp.sessions()).anyMatch(s -> s.status().equals("active"));
      } finally {
        agent.kill9AndRemoveItsCgroup();
      }
      // The file still says active, but the process that wrote it is gone.
      assertThat(cli("status", "--config", config.toString())).isEqualTo(69);
      assertThat(err()).contains("not running").contains("is gone");
      assertThat(cli("status", "--config", config.toString(), "--wait-ready=0")).isEqualTo(75);
      assertThat(err()).contains("not ready after 0 s");
    }
  }
}
