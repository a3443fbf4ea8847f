package io.ql3.worker.cli.e2e;

import io.ql3.worker.cli.config.TomlConfigLoader;
import io.ql3.worker.runtime.WorkerAgent;
import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.log.EventLog;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link WorkerAgent} in this JVM (like {@link AgentLifecycleTest}), its log lines kept and also
 * copied to the test output. {@link #close()} stops it (two signals: drain, then cancel runs) and
 * ends any run process it started that is still alive.
 */
final class InProcessAgent implements AutoCloseable {
  final WorkerAgent agent;
  final CompletableFuture<Integer> exit;
  private final ByteArrayOutputStream logs = new ByteArrayOutputStream();

  private InProcessAgent(Path configFile) throws Exception {
    AgentConfig config =
        ((ConfigReader.Enabled) new TomlConfigLoader().load(configFile, AgentProfile.EDGE))
            .config();
    PrintStream tee =
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) {
                synchronized (logs) {
                  logs.write(b);
                }
                System.out.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                synchronized (logs) {
                  logs.write(b, off, len);
                }
                System.out.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8);
    EventLog log = new EventLog(tee, AgentConfig.LogFormat.LOGFMT, Clock.systemUTC());
    agent =
        new WorkerAgent(
            config, new WorkerAgent.Environment(Clock.systemUTC(), Ticker.SYSTEM, log, false));
    exit =
        CompletableFuture.supplyAsync(
            agent::run, r -> new Thread(r, "agent-main").start()); // a thread of its own, as main
  }

  static InProcessAgent start(Path configFile) throws Exception {
    return new InProcessAgent(configFile);
  }

  String output() {
    synchronized (logs) {
      return logs.toString(StandardCharsets.UTF_8);
    }
  }

  void awaitOutput(String text, Duration timeout) throws InterruptedException {
    ControlPlaneFixture.await(
        "agent output '" + text + "'", timeout, () -> output().contains(text) || exit.isDone());
    if (!output().contains(text)) {
      throw new AssertionError("agent stopped before '" + text + "':\n" + output());
    }
  }

  /** Waits until {@code later} occurs in the log after the first {@code earlier}. */
  void awaitOutputAfter(String earlier, String later, Duration timeout)
      throws InterruptedException {
    ControlPlaneFixture.await(
        "agent output '" + later + "' after '" + earlier + "'",
        timeout,
        () -> indexAfter(earlier, later) >= 0 || exit.isDone());
    if (indexAfter(earlier, later) < 0) {
      throw new AssertionError(
          "agent stopped before '" + later + "' after '" + earlier + "':\n" + output());
    }
  }

  private int indexAfter(String earlier, String later) {
    String out = output();
    int first = out.indexOf(earlier);
    return first < 0 ? -1 : out.indexOf(later, first + earlier.length());
  }

  /** How many times {@code text} occurs in the log. */
  int count(String text) {
    String out = output();
    int n = 0;
    for (int i = out.indexOf(text); i >= 0; i = out.indexOf(text, i + text.length())) {
      n++;
    }
    return n;
  }

  OptionalLong runPid(String runId) {
    Matcher m =
        Pattern.compile(
                "event=run\\.started run=" + Pattern.quote(runId) + " attempt=\\d+ pid=(\\d+)")
            .matcher(output());
    return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /** The first signal (drain); returns the exit code once the agent stopped. */
  int shutdown(Duration timeout) throws Exception {
    agent.requestShutdown();
    if (!agent.awaitStopped(timeout)) {
      throw new AssertionError("agent did not stop:\n" + output());
    }
    return exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws Exception {
    List<Long> pids = new ArrayList<>();
    Matcher m =
        Pattern.compile("event=run\\.started run=\\S+ attempt=\\d+ pid=(\\d+)").matcher(output());
    while (m.find()) {
      pids.add(Long.parseLong(m.group(1)));
    }
    if (!exit.isDone()) {
      agent.requestShutdown();
      agent.requestShutdown();
      agent.awaitStopped(Duration.ofSeconds(30));
    }
    // Whatever happened above, no run process outlives the test.
    for (long pid : pids) {
      ProcessHandle.of(pid)
          .ifPresent(
              h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
              });
    }
  }
}
