package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real agent process: {@code <N>} priority prefixes only when {@code JOURNAL_STREAM} names its
 * stdout (as systemd sets it when stdout is journald's stream), plain lines otherwise.
 */
class JournaldPrioritiesTest {
  @TempDir Path dir;

  private static String streamOf(Path file) throws Exception {
    var a = Files.readAttributes(file, "unix:dev,ino");
    return a.get("dev") + ":" + a.get("ino");
  }

  /**
   * Starts an agent (its ingress unreachable: it logs info and warnings) and returns its output.
   */
  private String runUntilWarned(Path config, Path log, Map<String, String> env) throws Exception {
    AgentProcess agent = AgentProcess.start(config, "edge", log, env);
    try {
      agent.awaitOutput("event=session.request_failed", Duration.ofSeconds(60));
      return agent.output();
    } finally {
      agent.kill9AndRemoveItsCgroup();
    }
  }

  @Test
  void prioritiesOnlyWhenStdoutIsTheJournalStream() throws Exception {
    Path config;
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      config = cp.agentConfig("");
    } // nothing listens any more: the agent warns about the register it cannot send

    Path journald = Files.createFile(dir.resolve("journald.log"));
    String out = runUntilWarned(config, journald, Map.of("JOURNAL_STREAM", streamOf(journald)));
    assertThat(out.lines().filter(l -> l.contains("event=agent.start")))
        .singleElement()
        .asString()
        .startsWith("<6>ts=");
    assertThat(out.lines().filter(l -> l.contains("event=session.request_failed")))
        .first()
        .asString()
        .startsWith("<4>ts=");
    assertThat(out.lines().filter(l -> l.contains(" event=")).filter(l -> !l.startsWith("<")))
        .isEmpty();

    Path redirected = Files.createFile(dir.resolve("redirected.log"));
    Path other = Files.createFile(dir.resolve("other"));
    out = runUntilWarned(config, redirected, Map.of("JOURNAL_STREAM", streamOf(other)));
    assertThat(out).contains("event=agent.start").doesNotContain("<6>").doesNotContain("<4>");
    assertThat(out.lines().filter(l -> l.contains("event=session.request_failed")))
        .first()
        .asString()
        .startsWith("ts=");
  }

  @Test
  void logLevelWarnDropsInfoLines() throws Exception {
    Path config;
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      config = cp.agentConfig("");
    }
    Files.writeString(config, Files.readString(config) + "[log]\nlevel = \"warn\"\n");
    String out = runUntilWarned(config, dir.resolve("agent.log"), Map.of());
    assertThat(out)
        .contains("level=warn event=session.request_failed")
        .doesNotContain("level=info");
  }
}
