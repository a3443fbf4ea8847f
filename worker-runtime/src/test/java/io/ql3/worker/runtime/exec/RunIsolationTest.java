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
import io.ql3.worker.runtime.isolation.RunAccount;
import io.ql3.worker.runtime.isolation.RunAs;
import io.ql3.worker.runtime.isolation.RunLimits;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * Run isolation with real uids, real cgroups and real processes: runs switch to unprivileged uids
 * of their own (one per slot, from a range chosen per test JVM so that concurrent test runs on one
 * host never share one) and get their own cgroup v2 directory. Needs root (CI runs as root) and a
 * writable cgroup v2 hierarchy; skipped with the reason otherwise.
 */
class RunIsolationTest {

  private static SystemExecutionClock clock;
  private static final long BASE = 3_000_000 + (ProcessHandle.current().pid() % 100_000) * 8;

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
        new IsolationSettings(
            mode,
            new RunAs(Long.toString(BASE), Optional.empty()),
            4,
            new RunLimits(OptionalLong.of(64 * RunLimits.MIB), OptionalLong.of(64), 100));
    try {
      isolation =
          Isolation.resolve(
              s,
              IsolationHost.system(),
              state.resolve("runs"),
              "ql3-runs-test-" + ProcessHandle.current().pid());
    } catch (io.ql3.worker.runtime.isolation.IsolationException e) {
      assumeTrue(false, "isolation not available on this host: " + e.getMessage());
    }
    isolation.prepareWorkRoot(state.resolve("runs"));
    return isolation;
  }

  private ProcessExecutor executor(Isolation iso, ProcessExecutorSettings settings) {
    return new ProcessExecutor(
        settings, Map.of(), iso, (id, attempt, u) -> usage.put(id.value(), u));
  }

  private ExecutionContext context(String runId, Duration timeout, CancellationSignal signal) {
    Path runs = state.resolve("runs");
    return new ExecutionContext(
        new RunId(runId),
        1,
        "idem-" + runId,
        runs.resolve("runs").resolve(runId + "@1"),
        runs.resolve("logs").resolve(runId + "@1.log"),
        timeout,
        signal,
        clock);
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
    assertThat(iso.accounts()).isPresent();
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    sh(
                        PROBE,
                        Map.of(
                            "SECRET",
                            secret.toString(),
                            "STATE",
                            state.toString(),
                            "AGENT",
                            Long.toString(ProcessHandle.current().pid()))),
                    context("probe-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());

    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail())
        .startsWith(BASE + "\n")
        .contains("client.key: Permission denied")
        .contains("planted: Permission denied")
        .containsPattern(
            "kill: .*(Operation not permitted|No such process)|Operation not permitted")
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
        await(
            executor(Isolation.none(), ProcessExecutorSettings.defaults())
                .prepare(
                    sh(
                        PROBE,
                        Map.of(
                            "SECRET",
                            secret.toString(),
                            "STATE",
                            state.toString(),
                            "AGENT",
                            Long.toString(ProcessHandle.current().pid()))),
                    context("probe-none", Duration.ofMinutes(1), new CancellationSignal()))
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
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    new ProcessSpec(
                        List.of("/bin/sh", "-c", "exit 0"),
                        null,
                        Map.of("LD_PRELOAD", "/nonexistent-ql3-preload.so")),
                    context("preload-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail().split("nonexistent-ql3-preload.so", -1))
        .as(r.outputTail())
        .hasSize(2);
  }

  @Test
  void theRunOwnsItsWorkDirectoryAndItIsRemovedWhenItEndsEvenWhatItMadeUnreadable()
      throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    ExecutionContext ctx = context("workdir-1", Duration.ofMinutes(1), new CancellationSignal());
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    new ProcessSpec(
                        List.of(
                            "/bin/sh",
                            "-c",
                            "mkdir sub && echo hi > sub/f && cat sub/f;"
                                + " stat -c '%u %a' \"$QL3_WORK_DIR\"; pwd; mkdir -p locked/in && touch locked/in/x && chmod 000 locked"),
                        "cwd/deep",
                        Map.of()),
                    ctx)
                .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    Path work = ctx.workDirectory();
    assertThat(r.outputTail())
        .isEqualTo("hi\n" + BASE + " 700\n" + work.resolve("cwd/deep") + "\n");
    assertThat(work).as("removed with what the run locked").doesNotExist();
    assertThat(iso.acquireAccount())
        .as("the account is free again")
        .contains(new RunAccount(BASE, BASE));
  }

  @Test
  void aCwdNamedDashIsADirectoryBelowTheWorkDirectoryNotTheShellsPreviousDirectory()
      throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    ExecutionContext ctx = context("dash-1", Duration.ofMinutes(1), new CancellationSignal());
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(new ProcessSpec(List.of("/bin/sh", "-c", "pwd"), "-", Map.of()), ctx)
                .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail()).isEqualTo(ctx.workDirectory().resolve("-") + "\n");
  }

  @Test
  void whatARunLeavesInTmpDevShmSysVIpcAndBesideItsWorkDirectoryGoesBeforeItsUidIsReused()
      throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    String mark = "ql3-left-" + ProcessHandle.current().pid();
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    sh(
                        "echo secret > /tmp/"
                            + mark
                            + "; mkdir -p /var/tmp/"
                            + mark
                            + "/d && chmod 000 /var/tmp/"
                            + mark
                            + "; echo secret > /dev/shm/"
                            + mark
                            + "; echo secret > \"$QL3_WORK_DIR/../"
                            + mark
                            + "\"; mkdir \"$QL3_WORK_DIR/../"
                            + mark
                            + ".d\" && chmod 000 \"$QL3_WORK_DIR/../"
                            + mark
                            + ".d\""
                            + "; ipcmk -M 4096 >/dev/null && ipcmk -Q >/dev/null && ipcmk -S 1 >/dev/null;"
                            + " echo \"$TMPDIR\"",
                        Map.of()),
                    context("left-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail())
        .as("TMPDIR is the work directory")
        .isEqualTo(state.resolve("runs").resolve("runs").resolve("left-1@1") + "\n");
    assertThat(Path.of("/tmp", mark)).doesNotExist();
    assertThat(Path.of("/var/tmp", mark)).doesNotExist();
    assertThat(Path.of("/dev/shm", mark)).doesNotExist();
    Path runs = state.resolve("runs").resolve("runs");
    assertThat(runs.resolve(mark)).doesNotExist();
    assertThat(runs.resolve(mark + ".d")).doesNotExist();
    for (String table : List.of("shm", "msg", "sem")) {
      assertThat(
              Files.readAllLines(Path.of("/proc/sysvipc", table)).stream()
                  .skip(1)
                  .map(l -> l.trim().split("\\s+")))
          .as("SysV %s of uid %d", table, BASE)
          .noneMatch(f -> List.of(f).contains(Long.toString(BASE)));
    }
  }

  @Test
  void runsThatExistTogetherCannotReachEachOthersFilesOrProcesses() throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    ProcessExecutor ex = executor(iso, ProcessExecutorSettings.defaults());
    Path ready = state.resolve("a-ready");
    Files.createFile(ready);
    Files.setAttribute(ready, "unix:mode", 0666);
    Path go = state.resolve("a-go");
    ExecutionContext a = context("together-a", Duration.ofMinutes(1), new CancellationSignal());
    // A keeps a secret in its work directory and in its environment, and waits.
    RunHandle ha =
        ex.prepare(
                sh(
                    "echo mine > secret; echo $$ > \"$READY\"; while [ ! -e \"$GO\" ]; do sleep 0.01; done",
                    Map.of(
                        "READY",
                        ready.toString(),
                        "GO",
                        go.toString(),
                        "A_TOKEN",
                        "a-token-value")),
                a)
            .launch();
    long aPid = Long.parseLong(awaitFile(ready));
    ExecutionResult b =
        await(
            ex.prepare(
                    sh(
                        "id -u; cat \"$A/secret\" 2>&1; ls \"$A\" 2>&1; kill -0 \"$APID\" 2>&1;"
                            + " cat /proc/$APID/environ 2>&1; ls /proc/$APID/cwd/ 2>&1; exit 0",
                        Map.of("A", a.workDirectory().toString(), "APID", Long.toString(aPid))),
                    context("together-b", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    Files.createFile(go);
    assertThat(await(ha).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(b.outputTail())
        .startsWith((BASE + 1) + "\n")
        .contains("secret: Permission denied")
        .contains("together-a@1': Permission denied")
        .containsPattern("kill: .*(Operation not permitted)|Operation not permitted")
        .contains("environ: Permission denied")
        .doesNotContain("mine")
        .doesNotContain("a-token-value");
  }

  @Test
  void whatRunsOfAnEarlierStartLeftIsRemovedAtStartAsTheirOwners() throws Exception {
    Isolation iso = isolation(IsolationMode.REQUIRED);
    Path runs = state.resolve("runs").resolve("runs");
    Path left = Files.createDirectories(runs.resolve("crashed@1").resolve("locked").resolve("in"));
    Files.writeString(left.resolve("x"), "x");
    Path notOurs = Files.createDirectories(runs.resolve("not-a-run-uid"));
    for (Path p :
        List.of(
            runs.resolve("crashed@1"), runs.resolve("crashed@1/locked"), left, left.resolve("x"))) {
      Files.setAttribute(p, "unix:uid", (int) (BASE + 2));
      Files.setAttribute(p, "unix:gid", (int) (BASE + 2));
    }
    Files.setAttribute(runs.resolve("crashed@1/locked"), "unix:mode", 0);

    assertThat(iso.sweepWorkDirectories(runs)).isZero();
    assertThat(runs.resolve("crashed@1")).doesNotExist();
    assertThat(notOurs).as("only what the run uids own").exists();
  }

  @Test
  void aDaemonizedProcessDiesWithItsRunOnExitCancelAndTimeout() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent(), "no writable cgroup v2 here: " + iso.inactive());
    ProcessExecutor ex =
        executor(iso, ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(200)));
    // setsid + double fork: the daemon leaves the run's process group and is reparented to PID 1.
    String daemonize =
        "setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > \"$PIDFILE\"' ;"
            + " while [ ! -s \"$PIDFILE\" ]; do sleep 0.01; done; ";
    for (String how : List.of("exit", "cancel", "timeout")) {
      Path pidFile = state.resolve("daemon-" + how);
      CancellationSignal signal = new CancellationSignal();
      // Long enough for setpriv, setsid and the double fork to write the pid file before it fires.
      Duration timeout = how.equals("timeout") ? Duration.ofMillis(4000) : Duration.ofMinutes(1);
      String tail = how.equals("exit") ? "exit 0" : "sleep 300";
      Files.createFile(pidFile);
      Files.setAttribute(pidFile, "unix:mode", 0666);
      RunHandle h =
          ex.prepare(
                  sh(daemonize + "echo up; " + tail, Map.of("PIDFILE", pidFile.toString())),
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
      assertThat(r.outcome())
          .as(how + ": " + r.outputTail())
          .isEqualTo(
              switch (how) {
                case "exit" -> Outcome.SUCCEEDED;
                case "cancel" -> Outcome.CANCELLED;
                default -> Outcome.FAILED;
              });
      assertThat(isRunning(daemon)).as("daemon of %s after the run", how).isFalse();
      assertThat(iso.cgroups().get().runsCgroup().children())
          .as("run cgroups left after %s", how)
          .isEmpty();
    }
  }

  @Test
  void withoutACgroupWhatEscapesTheProcessGroupDiesByItsUidBeforeTheUidIsReused() throws Exception {
    IsolationHost sys = IsolationHost.system();
    Path noCgroup = Files.writeString(tmp.resolve("mountinfo-without-cgroup2"), "");
    IsolationHost host =
        new IsolationHost(
            sys.selfStatus(),
            sys.selfCgroup(),
            noCgroup,
            sys.selfPid(),
            sys.setpriv(),
            sys.shell(),
            sys.env(),
            sys.accounts(),
            sys.proc(),
            sys.sharedDirs());
    isolation =
        Isolation.resolve(
            new IsolationSettings(
                IsolationMode.AUTO,
                new RunAs(Long.toString(BASE), Optional.empty()),
                4,
                new RunLimits(OptionalLong.empty(), OptionalLong.empty(), 100)),
            host,
            state.resolve("runs"),
            "unused");
    isolation.prepareWorkRoot(state.resolve("runs"));
    assertThat(isolation.cgroups()).isEmpty();
    assertThat(isolation.accounts()).isPresent();
    Path pidFile = state.resolve("escaped");
    Files.createFile(pidFile);
    Files.setAttribute(pidFile, "unix:mode", 0666);
    ExecutionResult r =
        await(
            executor(
                    isolation,
                    ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(200)))
                .prepare(
                    sh(
                        "setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > \"$PIDFILE\"';"
                            + " while [ ! -s \"$PIDFILE\" ]; do sleep 0.01; done; exit 0",
                        Map.of("PIDFILE", pidFile.toString())),
                    context("escape-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    long escaped = Long.parseLong(Files.readString(pidFile).strip());
    assertThat(isRunning(escaped)).as("the escaped daemon, uid %d", BASE).isFalse();
  }

  @Test
  void cpuTimeIsReadFromTheRunsCgroup() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(iso.cgroups().isPresent(), "no writable cgroup v2 here: " + iso.inactive());
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", Map.of()),
                    context("cpu-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(usage.get("cpu-1").cpuMicros()).isPresent();
    assertThat(usage.get("cpu-1").cpuMicros().getAsLong()).isPositive();
  }

  @Test
  void aRunThatExceedsItsMemoryLimitFailsWithMemoryLimit() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(
        iso.cgroups().isPresent() && iso.cgroups().get().controllers().contains("memory"),
        "the memory controller is not enabled in this host's cgroup v2 (hybrid hierarchy: it is in v1);"
            + " the limit files are tested against a fake cgroupfs in CgroupSubtreeTest");
    ExecutionResult r =
        await(
            executor(iso, ProcessExecutorSettings.defaults())
                .prepare(
                    sh("x=$(head -c 150000000 /dev/zero | tr '\\0' a); echo ${#x}", Map.of()),
                    context("hog-1", Duration.ofMinutes(1), new CancellationSignal()))
                .launch());
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().code()).isEqualTo("memory_limit");
  }

  @Test
  void aForkBombStopsAtItsTaskLimitAndDiesWithTheRun() throws Exception {
    Isolation iso = isolation(IsolationMode.AUTO);
    assumeTrue(
        iso.cgroups().isPresent() && iso.cgroups().get().controllers().contains("pids"),
        "the pids controller is not enabled in this host's cgroup v2 (hybrid hierarchy: it is in v1);"
            + " the limit files are tested against a fake cgroupfs in CgroupSubtreeTest");
    CancellationSignal signal = new CancellationSignal();
    RunHandle h =
        executor(iso, ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(200)))
            .prepare(
                sh("bomb() { bomb | bomb & }; bomb; sleep 2; exit 0", Map.of()),
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
