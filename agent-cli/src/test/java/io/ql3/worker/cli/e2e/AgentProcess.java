package io.ql3.worker.cli.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code ql3-worker run} child JVM (same java, the test class path), its output in a file.
 */
final class AgentProcess {
  final Process process;
  final Path log;

  private AgentProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static AgentProcess start(Path config, String profile, Path log) throws IOException {
    return start(config, profile, log, java.util.Map.of());
  }

  /** With extra environment variables (e.g. {@code NOTIFY_SOCKET}). */
  static AgentProcess start(
      Path config, String profile, Path log, java.util.Map<String, String> env) throws IOException {
    return start(config, profile, log, env, new String[0]);
  }

  /**
   * @param wrapper a command that runs the agent's command line (e.g. {@code nohup})
   */
  static AgentProcess start(
      Path config, String profile, Path log, java.util.Map<String, String> env, String... wrapper)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(wrapper));
    cmd.addAll(
        List.of(
            java,
            "-XX:+UseSerialGC",
            "-Xmx64m",
            "-cp",
            System.getProperty("java.class.path"),
            "io.ql3.worker.cli.Main",
            "run",
            "--profile",
            profile,
            "--config",
            config.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment()
        .keySet()
        .removeIf(
            k ->
                k.equals("NOTIFY_SOCKET")
                    || k.startsWith("WATCHDOG_")
                    || k.equals("JOURNAL_STREAM")
                    || k.equalsIgnoreCase("HTTPS_PROXY")
                    || k.equalsIgnoreCase("NO_PROXY"));
    pb.environment().putAll(env);
    Process p =
        pb.redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new AgentProcess(p, log);
  }

  String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "<cannot read " + log + ": " + e + ">";
    }
  }

  /** Waits until the output contains {@code text} (the timeout only bounds a broken run). */
  void awaitOutput(String text, Duration timeout) throws InterruptedException {
    try {
      ControlPlaneFixture.await(
          "agent output '" + text + "'",
          timeout,
          () -> output().contains(text) || !process.isAlive());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + output(), e); // the output at the timeout
    }
    if (!output().contains(text)) {
      throw new AssertionError("agent exited before '" + text + "':\n" + output());
    }
  }

  /** The pid of a run's process as logged by {@code run.started}. */
  OptionalLong runPid(String runId) {
    Matcher m =
        Pattern.compile(
                "event=run\\.started run=" + Pattern.quote(runId) + " attempt=\\d+ pid=(\\d+)")
            .matcher(output());
    return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /** SIGKILL, like a power cut of the agent (its children are in their own process groups). */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, like systemd's stop. */
  int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("agent did not stop after SIGTERM:\n" + output());
    }
    return process.exitValue();
  }
}
