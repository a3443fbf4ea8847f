package io.ql3.worker.runtime.exec;

import static io.ql3.worker.runtime.exec.ChildProcesses.awaitFile;
import static io.ql3.worker.runtime.exec.ChildProcesses.isRunning;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.ProcessSpec;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.IsolationHost;
import io.ql3.worker.runtime.isolation.IsolationMode;
import io.ql3.worker.runtime.isolation.IsolationSettings;
import io.ql3.worker.runtime.isolation.ProcessIdentity;
import io.ql3.worker.runtime.isolation.RunLimits;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run isolation with real users, real cgroups and real processes: runs switch to the unprivileged
 * {@code nobody} account and get their own cgroup v2 directory. Needs root (CI runs as root) and
 * a writable cgroup v2 hierarchy; skipped with the reason otherwise.
 */
class RunIsolationTest {

  private static SystemExecutionClock clock;

  @TempDir Path tmp;

  private Path state; // the agent's state directory: 0711 like /var/lib/ql3-worker
  private Path secret; // a private file of the agent, like the key or the token
  private Isolation isolation;
  private final Map<String, RunUsage> usage = new ConcurrentHashMap<>();

  @BeforeAll
  static void startClock() {
    clock = new SystemExecutionClock();
  }

  @AfterAll
  static void stopClock() {
    clock.close();
  }

  @BeforeEach
  void layout() throws Exception {
    ProcessIdentity self = ProcessIdentity.read(Path.of("/proc/self/status"));
    assumeTrue(self.isRoot(), "run isolation tests switch users: they need root (CI runs as root)");
    Files.setAttribute(tmp, "unix:mode", 0711);
    state = Files.createDirectories(tmp.resolve("state"));
    Files.setAttribute(state, "unix:mode", 0711);
    secret = state.resolve("client.key");
    Files.writeString(secret, "-----BEGIN PRIVATE KEY----- not for runs\n");
    Files.setAttribute(secret, "unix:mode", 0600);
  }

  @AfterEach
  void close() {
    if (isolation != null) {
      isolation.close();
    }
  }

  private Isolation isolation(IsolationMode mode) throws Exception {
    IsolationSettings s =
        new IsolationSettings(mode, "nobody", "nogroup",
            new RunLimits(OptionalLong.of(64 * RunLimits.MIB), OptionalLong.of(64), 100));
    try {
      isolation = Isolation.resolve(s, IsolationHost.system(), state.resolve("runs"), "ql3-runs-test-" + ProcessHandle.current().pid());
    } catch (io.ql3.worker.runtime.isolation.IsolationException e) {
      assumeTrue(false, "isolation not available on this host: " + e.getMessage());
    }
    isolation.prepareWorkRoot(state.resolve("runs"));
    return isolation;
  }

  private ProcessExecutor executor(Isolation iso, ProcessExecutorSettings settings) {
    return new ProcessExecutor(settings, Map.of(), iso, (id, attempt, u) -> usage.put(id.value(), u));
  }

  private ExecutionContext context(String runId, Duration timeout, CancellationSignal signal) {
    Path runs = state.resolve("runs");
    return new ExecutionContext(
        new RunId(runId), 1, "idem-" + runId, runs.resolve("runs").resolve(runId + "@1"),
        runs.resolve("logs").resolve(runId + "@1.log"), timeout, signal, clock);
  }

  private static ProcessSpec sh(String script, Map<String, String> env) {
    return new ProcessSpec(List.of("/bin/sh", "-c", script), null, env);
  }

  private static ExecutionResult await(RunHandle h) throws Exception {
    return h.result().get(60, TimeUnit.SECONDS);
  }

  private static final String PROBE =
      "id -u; cat \"$SECRET\" 2>&1; echo x > \"$STATE/planted\" 2>&1; kill -0 \"$AGENT\" 2>&1;"
          + " cat /proc/self/status | grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs)'; exit 0";

  @Test
  void aRunCannotReadTheAgentsFilesWriteItsDirectoriesOrSignalIt() throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    assertThat(iso.account()).isPresent();
    ExecutionResult r =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(sh(PROBE, Map.of("SECRET", secret.toString(), "STATE", state.toString(),
                "AGENT", Long.toString(ProcessHandle.current().pid()))), context("probe-1", Duration.ofMinutes(1),
                new CancellationSignal()))
            .launch());

    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail())
        .startsWith("65534\n")
        .contains("client.key: Permission denied")
        .contains("planted: Permission denied")
        .containsPattern("kill: .*(Operation not permitted|No such process)|Operation not permitted")
        .contains("CapInh:\t0000000000000000")
        .contains("CapPrm:\t0000000000000000")
        .contains("CapEff:\t0000000000000000")
        .contains("CapBnd:\t0000000000000000")
        .contains("CapAmb:\t0000000000000000")
        .contains("NoNewPrivs:\t1")
        .doesNotContain("not for runs");
    assertThat(state.resolve("planted")).doesNotExist();
  }

  @Test
  void withIsolationNoneTheSameRunReadsTheKey() throws Exception {
    ExecutionResult r =
        await(executor(Isolation.none(), ProcessExecutorSettings.defaults())
            .prepare(sh(PROBE, Map.of("SECRET", secret.toString(), "STATE", state.toString(),
                "AGENT", Long.toString(ProcessHandle.current().pid()))), context("probe-none", Duration.ofMinutes(1),
                new CancellationSignal()))
            .launch());
    assertThat(r.outputTail()).startsWith("0\n").contains("not for runs");
    // Same user, but never the agent's capabilities: a non-root agent's ambient set would let a
    // run setuid(0).
    assertThat(r.outputTail())
        .contains("CapEff:\t0000000000000000")
        .contains("CapAmb:\t0000000000000000")
        .contains("NoNewPrivs:\t1");
  }

  @Test
  void theRunsEnvironmentReachesOnlyItsOwnProgramNotTheHelpersBeforeIt() throws Exception {
    // The loader reports an LD_PRELOAD it cannot load once per dynamically linked execve that sees
    // it: the entry shell, setsid and setpriv run with the agent's capabilities and must not.
    Isolation iso = isolation(IsolationMode.AUTO);
    ExecutionResult r =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(new ProcessSpec(List.of("/bin/sh", "-c", "exit 0"), null,
                Map.of("LD_PRELOAD", "/nonexistent-ql3-preload.so")), context("preload-1", Duration.ofMinutes(1),
                new CancellationSignal()))
            .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail().split("nonexistent-ql3-preload.so", -1)).as(r.outputTail()).hasSize(2);
  }

  @Test
  void theRunOwnsItsWorkDirectoryAndLosesItWhenItEnds() throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    ExecutionContext ctx = context("workdir-1", Duration.ofMinutes(1), new CancellationSignal());
    ExecutionResult r =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(new ProcessSpec(List.of("/bin/sh", "-c", "mkdir sub && echo hi > sub/f && cat sub/f"), "cwd/deep",
                Map.of()), ctx)
            .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail()).isEqualTo("hi\n");
    Path work = ctx.workDirectory();
    assertThat(Files.readString(work.resolve("cwd/deep/sub/f"))).isEqualTo("hi\n");
    assertThat((Integer) Files.getAttribute(work, "unix:mode") & 07777).as("closed after the run").isEqualTo(0700);

    // A later run (same account) cannot reach the finished run's files, nor the output logs.
    ExecutionResult other =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(sh("cat \"$F\" 2>&1; ls \"$LOGS\" 2>&1; exit 0",
                Map.of("F", work.resolve("cwd/deep/sub/f").toString(), "LOGS", ctx.outputLog().getParent().toString())),
                context("workdir-2", Duration.ofMinutes(1), new CancellationSignal()))
            .launch());
    assertThat(other.outputTail())
        .contains("sub/f: Permission denied")
        .contains("logs': Permission denied")
        .doesNotContain("hi\n")
        .doesNotContain("workdir-1@1.log");
  }

  @Test
  void aDaemonizedProcessDiesWithItsRunOnExitCancelAndTimeout() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent(), "no writable cgroup v2 here: " + iso.inactive());
    ProcessExecutor ex = executor(iso, ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(200)));
    // setsid + double fork: the daemon leaves the run's process group and is reparented to PID 1.
    String daemonize = "setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > \"$PIDFILE\"' ;"
        + " while [ ! -s \"$PIDFILE\" ]; do sleep 0.01; done; ";
    for (String how : List.of("exit", "cancel", "timeout")) {
      Path pidFile = state.resolve("daemon-" + how);
      CancellationSignal signal = new CancellationSignal();
      Duration timeout = how.equals("timeout") ? Duration.ofMillis(1500) : Duration.ofMinutes(1);
      String tail = how.equals("exit") ? "exit 0" : "sleep 300";
      Files.createFile(pidFile);
      Files.setAttribute(pidFile, "unix:mode", 0666);
      RunHandle h =
          ex.prepare(sh(daemonize + "echo up; " + tail, Map.of("PIDFILE", pidFile.toString())),
                  context("daemon-" + how, timeout, signal))
              .launch();
      long daemon = Long.parseLong(awaitFile(pidFile));
      if (!how.equals("exit")) {
        assertThat(isRunning(daemon)).as("daemon of %s running during the run", how).isTrue();
      }
      if (how.equals("cancel")) {
        signal.cancel();
      }
      ExecutionResult r = await(h);
      assertThat(r.outcome()).as(how + ": " + r.outputTail())
          .isEqualTo(switch (how) {
            case "exit" -> Outcome.SUCCEEDED;
            case "cancel" -> Outcome.CANCELLED;
            default -> Outcome.FAILED;
          });
      assertThat(isRunning(daemon)).as("daemon of %s after the run", how).isFalse();
      assertThat(iso.cgroups().get().runsCgroup().children()).as("run cgroups left after %s", how).isEmpty();
    }
  }

  @Test
  void cpuTimeIsReadFromTheRunsCgroup() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent(), "no writable cgroup v2 here: " + iso.inactive());
    ExecutionResult r =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", Map.of()),
                context("cpu-1", Duration.ofMinutes(1), new CancellationSignal()))
            .launch());
    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(usage.get("cpu-1").cpuMicros()).isPresent();
    assertThat(usage.get("cpu-1").cpuMicros().getAsLong()).isPositive();
  }

  @Test
  void aRunThatExceedsItsMemoryLimitFailsWithMemoryLimit() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent() && iso.cgroups().get().controllers().contains("memory"),
        "the memory controller is not enabled in this host's cgroup v2 (hybrid hierarchy: it is in v1);"
            + " the limit files are tested against a fake cgroupfs in CgroupSubtreeTest");
    ExecutionResult r =
        await(executor(iso, ProcessExecutorSettings.defaults())
            .prepare(sh("x=$(head -c 150000000 /dev/zero | tr '\\0' a); echo ${#x}", Map.of()),
                context("hog-1", Duration.ofMinutes(1), new CancellationSignal()))
            .launch());
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().code()).isEqualTo("memory_limit");
  }

  @Test
  void aForkBombStopsAtItsTaskLimitAndDiesWithTheRun() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent() && iso.cgroups().get().controllers().contains("pids"),
        "the pids controller is not enabled in this host's cgroup v2 (hybrid hierarchy: it is in v1);"
            + " the limit files are tested against a fake cgroupfs in CgroupSubtreeTest");
    CancellationSignal signal = new CancellationSignal();
    RunHandle h =
        executor(iso, ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(200)))
            .prepare(sh("bomb() { bomb | bomb & }; bomb; sleep 2; exit 0", Map.of()),
                context("bomb-1", Duration.ofSeconds(20), signal))
            .launch();
    Path cg = iso.cgroups().get().runsCgroup().children().get(0).dir();
    await(h);
    assertThat(Files.exists(cg) ? 1 : 0).as("run cgroup removed").isZero();
    // The agent (this JVM) still starts threads and processes after the bomb.
    assertThat(new ProcessBuilder("true").start().waitFor()).isZero();
    assertThat(iso.cgroups().get().runsCgroup().children()).isEmpty();
  }
}
