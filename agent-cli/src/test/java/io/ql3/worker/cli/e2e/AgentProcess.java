package io.ql3.worker.cli.e2e;

import io.ql3.worker.cli.config.TomlConfigLoader;
import io.ql3.worker.runtime.IsolationStartup;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.isolation.CgroupLocation;
import io.ql3.worker.runtime.isolation.CgroupSubtree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code ql3-worker run} child JVM (same java, the test class path), its output in a file.
 */
final class AgentProcess {
  final Process process;
  final Path log;
  private final Path config;
  private final String profile;

  private AgentProcess(Process process, Path log, Path config, String profile) {
    this.process = process;
    this.log = log;
    this.config = config;
    this.profile = profile;
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
    return new AgentProcess(p, log, config, profile);
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

  /**
   * SIGKILL at a test's end, then what the agent's next start would have swept: its run cgroup
   * subtree ({@code ql3-runs-HASH} of its journal), removed when no run is left in it. Only for a
   * test that does not start the agent again; a crash test keeps {@link #kill9()}, whose leftovers
   * the restart must find.
   */
  void kill9AndRemoveItsCgroup() throws Exception {
    kill9();
    Optional<CgroupLocation> here =
        CgroupLocation.find(Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"));
    if (here.isEmpty()) {
      return; // no cgroup v2: the agent made none
    }
    AgentConfig agent =
        ((ConfigReader.Enabled)
                new TomlConfigLoader().load(config, AgentProfile.valueOf(profile.toUpperCase())))
            .config();
    // The child started in this JVM's cgroup, so its OWN is this JVM's.
    Path runs =
        CgroupSubtree.ownDirectory(here.get())
            .resolve(IsolationStartup.runsCgroupName(agent.journal().dir()));
    try {
      Files.deleteIfExists(runs); // rmdir: refused while a run cgroup is left in it
    } catch (IOException e) {
      System.out.println("run cgroup left: " + e);
    }
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
