package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) {
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

  @Test
  void disabledAgentExitsZeroBeforeTouchingAnyCredentialOrPath() throws Exception {
    // Every path named here is missing or unreadable: a disabled agent must not look at them.
    Path config = dir.resolve("agent.toml");
    Files.writeString(
        config, "enabled = false\n[credentials]\ncertificate = \"/nonexistent/client.crt\"\n");
    assertThat(run("run", "--profile", "edge", "--config", config.toString())).isEqualTo(0);
    assertThat(out()).contains("disabled");
    assertThat(dir.resolve("journal")).doesNotExist();
  }

  /**
   * A parked host (enabled = false) keeps its journal: the commands that look at what a stopped
   * agent left read the whole configuration anyway, so the check before a purge works.
   */
  @Test
  void theJournalOfADisabledAgentCanStillBeVerified() throws Exception {
    Path config = disabledConfig();
    io.ql3.worker.journal.Journal.open(
            io.ql3.worker.journal.JournalConfig.of(dir.resolve("journal"), "edge-0001"))
        .close();
    assertThat(run("journal", "verify", "--profile", "edge", "--config", config.toString()))
        .as(err())
        .isZero();
    assertThat(run("run", "--profile", "edge", "--config", config.toString())).isZero();
    assertThat(out()).contains("disabled");
  }

  /** Resolving a run the journal does not hold live is a usage error, not "try later". */
  @Test
  void resolvingARunThatIsNotLiveOrAnInvalidAttemptIsAUsageError() throws Exception {
    Path config = disabledConfig();
    io.ql3.worker.journal.Journal.open(
            io.ql3.worker.journal.JournalConfig.of(dir.resolve("journal"), "edge-0001"))
        .close();
    String[] common = {"--profile", "edge", "--config", config.toString(), "--note", "checked"};
    assertThat(run(concat(new String[] {"journal", "resolve", "no-such-run", "1"}, common)))
        .as(err())
        .isEqualTo(64);
    assertThat(run(concat(new String[] {"journal", "resolve", "r1", "0"}, common)))
        .as(err())
        .isEqualTo(64);
    // No journal there: none is created (it would be the caller's, maybe root's).
    Path moved = dir.resolve("journal-aside");
    Files.move(dir.resolve("journal"), moved);
    assertThat(run(concat(new String[] {"journal", "resolve", "r1", "1"}, common)))
        .as(err())
        .isEqualTo(64);
    assertThat(dir.resolve("journal")).doesNotExist();
  }

  /**
   * Run as another user than the journal's owner (root through sudo), a command that writes the
   * journal would leave files the agent cannot open: refused, nothing changed.
   */
  @Test
  void aJournalCommandThatWritesRefusesToRunAsAnotherUserThanTheOwner() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")), "needs root to give the journal away");
    Path config = disabledConfig();
    Path journal = dir.resolve("journal");
    io.ql3.worker.journal.Journal.open(io.ql3.worker.journal.JournalConfig.of(journal, "edge-0001"))
        .close();
    List<String> before;
    try (var files = Files.list(journal)) {
      before = files.map(f -> f.getFileName().toString()).sorted().toList();
    }
    Files.setAttribute(journal, "unix:uid", 65534);
    assertThat(
            run(
                "journal",
                "resolve",
                "r1",
                "1",
                "--note",
                "x",
                "--profile",
                "edge",
                "--config",
                config.toString()))
        .isEqualTo(77);
    assertThat(err()).contains("run it as the journal's owner");
    try (var files = Files.list(journal)) {
      assertThat(files.map(f -> f.getFileName().toString()).sorted().toList()).isEqualTo(before);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void runWithoutRequiredOptionsIsAUsageError() {
    assertThat(run("run", "--profile", "edge")).isEqualTo(64);
    assertThat(err()).contains("--config is required");
  }

  @Test
  void anUnknownProfileIsAUsageErrorForEveryCommand() {
    for (String[] command :
        new String[][] {{"run"}, {"check"}, {"status"}, {"journal", "verify"}, {"capability"}}) {
      String[] args = java.util.Arrays.copyOf(command, command.length + 4);
      System.arraycopy(
          new String[] {"--profile", "big", "--config", "x.toml"}, 0, args, command.length, 4);
      err.reset();
      assertThat(run(args)).as(String.join(" ", command) + ": " + err()).isEqualTo(64);
      assertThat(err()).contains("unknown profile 'big'");
    }
  }

  @Test
  void runWithABadConfigurationExits78NamingFileAndKey() throws Exception {
    Path config = dir.resolve("agent.toml");
    Files.writeString(config, "enabled = true\nworker = 3\n");
    assertThat(run("run", "--profile", "edge", "--config", config.toString())).isEqualTo(78);
    assertThat(err()).contains("agent.toml").contains("worker");
  }

  @Test
  void runHelpPrintsUsage() {
    assertThat(run("run", "--help")).isEqualTo(0);
    assertThat(out()).contains("Usage: ql3-worker run");
  }

  @Test
  void versionPrintsVersionAndRevision() {
    assertThat(run("version")).isEqualTo(0);
    assertThat(out()).matches("(?s)ql3-worker \\S+ \\(revision [0-9a-f]{40}.*\\)\\s*");
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertThat(run("frobnicate")).isEqualTo(64);
  }

  /** A whole configuration with enabled = false, its journal in {@code dir/journal}. */
  private Path disabledConfig() throws Exception {
    Path config = dir.resolve("agent.toml");
    Files.writeString(
        config,
        io.ql3.worker.cli.config.TomlConfigLoaderTest.MINIMAL.replace(
            "enabled = true", "enabled = false"));
    return config;
  }
}
