package io.ql3.worker.runtime.exec;

import static io.ql3.worker.runtime.exec.ChildProcesses.awaitFile;
import static io.ql3.worker.runtime.exec.ChildProcesses.isRunning;
import static io.ql3.worker.runtime.exec.ChildProcesses.processGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.NoopSpec;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.OutputTail;
import io.ql3.worker.contract.ProcessSpec;
import io.ql3.worker.contract.RunId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process executor against real child processes, process groups and files. */
class ProcessExecutorTest {

  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Map<String, String> AGENT_ENV =
      Map.of("SECRET_TOKEN", "hunter2", "TZ", "UTC", "AWS_SECRET_ACCESS_KEY", "do-not-leak");

  private static SystemExecutionClock clock;

  @TempDir Path tmp;

  @BeforeAll
  static void startClock() {
    clock = new SystemExecutionClock();
  }

  @AfterAll
  static void stopClock() {
    clock.close();
  }

  // ---- helpers

  private ExecutionContext context(String runId, Duration timeout, CancellationSignal signal) {
    Path runDir = tmp.resolve("runs").resolve(runId);
    return new ExecutionContext(
        new RunId(runId),
        1,
        "idem-" + runId,
        runDir.resolve("work"),
        runDir.resolve("output.log"),
        timeout,
        signal,
        clock);
  }

  private ExecutionContext context(String runId) {
    return context(runId, LONG, new CancellationSignal());
  }

  private static ProcessExecutor executor(ProcessExecutorSettings settings) {
    return new ProcessExecutor(settings, AGENT_ENV);
  }

  private static ProcessExecutor executor() {
    return executor(ProcessExecutorSettings.defaults());
  }

  private static ProcessSpec sh(String script, Map<String, String> env) {
    return new ProcessSpec(List.of("/bin/sh", "-c", script), null, env);
  }

  private static ProcessSpec sh(String script) {
    return sh(script, Map.of());
  }

  private static ExecutionResult await(RunHandle handle) throws Exception {
    return handle.result().get(60, TimeUnit.SECONDS);
  }

  private static ExecutionResult run(
      ProcessExecutor executor, ProcessSpec spec, ExecutionContext ctx) throws Exception {
    executor.validate(spec);
    return await(executor.prepare(spec, ctx).launch());
  }

  // ---- success, output, process group

  @Test
  void succeedsWithMergedOutputInTheLogAndLeadsItsOwnProcessGroup() throws Exception {
    ExecutionContext ctx = context("ok-1");
    PreparedRun prepared =
        executor()
            .prepare(sh("echo out; echo err >&2; echo \"$$ $(cut -d' ' -f5 /proc/$$/stat)\""), ctx);
    RunHandle handle = prepared.launch();
    ExecutionResult r = await(handle);

    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.failure()).isNull();
    assertThat(r.exitCode()).isZero();
    long pid = handle.pid().orElseThrow();
    assertThat(handle.startedAt()).isNotNull();
    // setsid made the launched process the leader of a new group: pgid = pid.
    assertThat(r.outputTail()).isEqualTo("out\nerr\n" + pid + " " + pid + "\n");
    assertThat(r.outputBytes()).isEqualTo(r.outputTail().getBytes(StandardCharsets.UTF_8).length);
    assertThat(Files.readString(ctx.outputLog())).isEqualTo(r.outputTail());
    assertThat(Files.exists(Path.of(ctx.outputLog() + ".1"))).isFalse();
    assertThat(ChildProcesses.state(pid)).as("the JVM reaped the main process").isEqualTo("gone");
  }

  @Test
  void anArgv0ThatLooksLikeAnOptionIsTheProgramNotAHelpersOption() throws Exception {
    // setsid -f would fork and then find no program: every helper ends its options with --.
    Path bin = Files.createDirectories(tmp.resolve("bin-dash"));
    Path program = bin.resolve("-f");
    Files.writeString(program, "#!/bin/sh\necho \"ran $0 $*\"\n");
    program.toFile().setExecutable(true);
    ProcessSpec spec = new ProcessSpec(List.of("-f", "-x"), null, Map.of());
    ExecutionResult r =
        run(
            executor(ProcessExecutorSettings.defaults().withPath(bin.toString())),
            spec,
            context("dash-f"));
    assertThat(r.outcome()).as(r.outputTail()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail()).isEqualTo("ran " + program + " -x\n");
  }

  @Test
  void programRunsWithoutAShellAndArgumentsArriveVerbatim() throws Exception {
    ProcessSpec spec =
        new ProcessSpec(List.of("printf", "%s|", "$HOME", "a b", "*", "`id`"), null, Map.of());
    ExecutionResult r = run(executor(), spec, context("argv-1"));
    assertThat(r.outputTail()).isEqualTo("$HOME|a b|*|`id`|");
  }

  // ---- exit codes

  @Test
  void exitCodesMapToOutcomesAndCategories() throws Exception {
    ProcessExecutor ex =
        executor(ProcessExecutorSettings.defaults().withPermanentExitCodes(Set.of(3, 64)));

    ExecutionResult zero = run(ex, sh("exit 0"), context("exit-0"));
    assertThat(zero.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(zero.exitCode()).isZero();

    ExecutionResult permanent = run(ex, sh("exit 3"), context("exit-3"));
    assertThat(permanent.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(permanent.exitCode()).isEqualTo(3);
    assertThat(permanent.failure().category()).isEqualTo(FailureCategory.PERMANENT);
    assertThat(permanent.failure().code()).isEqualTo("exit_nonzero");

    ExecutionResult transientExit = run(ex, sh("exit 4"), context("exit-4"));
    assertThat(transientExit.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(transientExit.exitCode()).isEqualTo(4);
    assertThat(transientExit.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(transientExit.failure().code()).isEqualTo("exit_nonzero");

    ExecutionResult max = run(ex, sh("exit 255"), context("exit-255"));
    assertThat(max.exitCode()).isEqualTo(255);
    assertThat(max.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(max.failure().message()).isEqualTo("process exited with status 255");
  }

  @Test
  void killedBySignalHasNoExitCode() throws Exception {
    ExecutionResult r =
        run(executor(), sh("echo before; kill -KILL $$; echo never"), context("sig-1"));
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.exitCode()).isNull();
    assertThat(r.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(r.failure().code()).isEqualTo("killed_by_signal");
    assertThat(r.failure().message()).contains("SIGKILL");
    assertThat(r.outputTail()).isEqualTo("before\n");
  }

  // ---- timeout and cancellation

  @Test
  void timeoutTerminatesTheGroupAndFailsTransient() throws Exception {
    // The timeout is armed before the spawn: long enough for the echo on a loaded machine.
    ExecutionContext ctx = context("timeout-1", Duration.ofMillis(2000), new CancellationSignal());
    ExecutionResult r = run(executor(), sh("echo started; sleep 30; echo never"), ctx);
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(r.failure().code()).isEqualTo("task_timeout");
    assertThat(r.failure().message())
        .contains("2000 ms")
        .contains("SIGTERM")
        .doesNotContain("SIGKILL");
    assertThat(r.exitCode()).as("terminated by SIGTERM: no exit status").isNull();
    assertThat(r.durationMs()).isGreaterThanOrEqualTo(2000);
    assertThat(r.outputTail()).isEqualTo("started\n");
  }

  @Test
  void cancellationSendsSigtermAndAChildThatTrapsItEndsGracefully() throws Exception {
    Path ready = tmp.resolve("ready-graceful");
    CancellationSignal signal = new CancellationSignal();
    ExecutionContext ctx = context("cancel-graceful", LONG, signal);
    ProcessExecutor ex =
        executor(ProcessExecutorSettings.defaults().withKillGrace(Duration.ofSeconds(30)));
    RunHandle handle =
        ex.prepare(
                sh(
                    "trap 'echo got-term; exit 3' TERM; echo ready > \"$READY\";"
                        + " while :; do sleep 0.05; done",
                    Map.of("READY", ready.toString())),
                ctx)
            .launch();
    awaitFile(ready);
    assertThat(Thread.getAllStackTraces().keySet())
        .as("the output pump thread is named after its run")
        .anyMatch(t -> t.getName().equals("ql3-exec-output-cancel-graceful"));

    signal.cancel(
        new io.ql3.worker.contract.Failure(FailureCategory.PERMANENT, "cancelled", "cancelRuns"));
    ExecutionResult r = await(handle);

    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.exitCode()).as("the trap exited normally").isEqualTo(3);
    assertThat(r.failure().category()).isEqualTo(FailureCategory.PERMANENT);
    assertThat(r.failure().code()).isEqualTo("cancelled");
    assertThat(r.failure().message())
        .startsWith("cancelRuns")
        .contains("SIGTERM")
        .doesNotContain("SIGKILL");
    // (sh may first report its foreground sleep "Terminated": the group got the signal.)
    assertThat(r.outputTail()).endsWith("got-term\n");
  }

  @Test
  void aChildThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    Path ready = tmp.resolve("ready-stubborn");
    CancellationSignal signal = new CancellationSignal();
    ExecutionContext ctx = context("cancel-stubborn", LONG, signal);
    ProcessExecutor ex =
        executor(ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(300)));
    RunHandle handle =
        ex.prepare(
                sh(
                    "trap '' TERM; echo ready > \"$READY\"; while :; do sleep 0.05; done",
                    Map.of("READY", ready.toString())),
                ctx)
            .launch();
    awaitFile(ready);
    long pid = handle.pid().orElseThrow();

    signal.cancel();
    ExecutionResult r = await(handle);

    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.exitCode()).isNull();
    assertThat(r.failure().code()).isEqualTo("cancelled");
    assertThat(r.failure().message()).contains("SIGKILL after the 300 ms grace");
    assertThat(r.durationMs()).isGreaterThanOrEqualTo(300);
    assertThat(isRunning(pid)).isFalse();
  }

  @Test
  void cancelBeforeLaunchStartsNothing() throws Exception {
    Path marker = tmp.resolve("must-not-exist");
    CancellationSignal signal = new CancellationSignal();
    ExecutionContext ctx = context("cancel-early", LONG, signal);
    PreparedRun prepared =
        executor().prepare(sh("echo x > \"$M\"", Map.of("M", marker.toString())), ctx);
    signal.cancel();
    RunHandle handle = prepared.launch();
    ExecutionResult r = await(handle);
    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.exitCode()).isNull();
    assertThat(r.failure().message()).contains("before the process started");
    assertThat(handle.pid()).isEmpty();
    assertThat(marker).doesNotExist();
  }

  @Test
  void cancellingRightAfterLaunchAlwaysEndsTheRun() throws Exception {
    // The signal may land before the child has called setsid() (no group yet): the lone process
    // is signalled instead. Whatever the interleaving, every run ends cancelled and nothing lives
    // on.
    ProcessExecutor ex =
        executor(ProcessExecutorSettings.defaults().withKillGrace(Duration.ofMillis(500)));
    for (int i = 0; i < 10; i++) {
      CancellationSignal signal = new CancellationSignal();
      RunHandle handle = ex.prepare(sh("sleep 1000"), context("race-" + i, LONG, signal)).launch();
      signal.cancel();
      ExecutionResult r = await(handle);
      assertThat(r.outcome()).as("run %d", i).isEqualTo(Outcome.CANCELLED);
      assertThat(isRunning(handle.pid().orElseThrow())).isFalse();
    }
  }

  @Test
  void withoutAGroupTheLoneProcessIsSignalledInsteadSigtermThenSigkill() throws Exception {
    // /usr/bin/env in place of setsid execs the program WITHOUT making it a group leader: every
    // group signal finds no group, so only the per-process fallbacks can end the run.
    ProcessExecutorSettings noGroup =
        new ProcessExecutorSettings(
            Set.of(),
            1 << 20,
            Duration.ofMillis(300),
            Duration.ofSeconds(5),
            ProcessExecutorSettings.DEFAULT_PATH,
            "C.UTF-8",
            Set.of(),
            Path.of("/usr/bin/env"));
    Path ready = tmp.resolve("ready-nogroup");
    CancellationSignal signal = new CancellationSignal();
    RunHandle handle =
        executor(noGroup)
            .prepare(
                sh(
                    "trap '' TERM; echo ready > \"$READY\"; while :; do sleep 0.05; done",
                    Map.of("READY", ready.toString())),
                context("nogroup-1", LONG, signal))
            .launch();
    awaitFile(ready);
    long pid = handle.pid().orElseThrow();
    assertThat(processGroup(pid)).isNotEqualTo(pid);

    signal.cancel();
    ExecutionResult r = await(handle);
    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.exitCode()).as("SIGKILL via destroyForcibly").isNull();
    assertThat(r.failure().message()).contains("SIGKILL after the 300 ms grace");
  }

  // ---- grandchildren

  @Test
  void grandchildrenLeftBehindByAFinishedRunAreKilledWithTheGroup() throws Exception {
    Path gc = tmp.resolve("gc-exit.pid");
    ExecutionContext ctx = context("gc-exit");
    // The grandchild inherits the output pipe and outlives the leader.
    ExecutionResult r =
        run(
            executor(),
            sh("sleep 1000 & echo $! > \"$GC\"; echo leader-done", Map.of("GC", gc.toString())),
            ctx);
    long grandchild = Long.parseLong(awaitFile(gc));

    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputTail()).isEqualTo("leader-done\n");
    // SIGKILL went to the group before the result completed; the kernel finishes it off at once
    // (a sleep 1000 that dies within the bound was killed, it did not end by itself).
    assertThat(ChildProcesses.awaitNotRunning(grandchild))
        .as("grandchild %d is dead", grandchild)
        .isTrue();
  }

  @Test
  void cancellationKillsGrandchildrenEvenOnesIgnoringSigterm() throws Exception {
    Path gc = tmp.resolve("gc-cancel.pid");
    Path ready = tmp.resolve("gc-cancel.ready");
    CancellationSignal signal = new CancellationSignal();
    ExecutionContext ctx = context("gc-cancel", LONG, signal);
    ProcessExecutor ex =
        executor(ProcessExecutorSettings.defaults().withKillGrace(Duration.ofSeconds(30)));
    RunHandle handle =
        ex.prepare(
                sh(
                    "sh -c 'trap \"\" TERM; exec sleep 1000' & echo $! > \"$GC\";"
                        + " sleep 1000 & echo ready > \"$READY\"; wait",
                    Map.of("GC", gc.toString(), "READY", ready.toString())),
                ctx)
            .launch();
    awaitFile(ready);
    long stubborn = Long.parseLong(awaitFile(gc));
    assertThat(processGroup(stubborn)).isEqualTo(handle.pid().orElseThrow());

    signal.cancel();
    ExecutionResult r = await(handle);

    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    // The leader died of SIGTERM well before the 30 s grace; the grandchild that ignores SIGTERM
    // was SIGKILLed with the rest of the group when the leader exited.
    assertThat(r.failure().message()).doesNotContain("grace");
    assertThat(ChildProcesses.awaitNotRunning(stubborn))
        .as("grandchild %d is dead", stubborn)
        .isTrue();
  }

  @Test
  void aProcessThatLeavesTheGroupDoesNotHoldTheResultPastTheDrainTimeout() throws Exception {
    Path escapee = tmp.resolve("escapee.pid");
    ProcessExecutor ex =
        executor(
            ProcessExecutorSettings.defaults().withOutputDrainTimeout(Duration.ofMillis(2000)));
    ExecutionContext ctx = context("escape-1");
    // setsid gives the grandchild a session and group of its own: out of the run's reach (a
    // documented limit), and it keeps the output pipe open.
    ExecutionResult r =
        run(
            ex,
            sh(
                "setsid sh -c 'echo $$ > \"$E\"; exec sleep 1000' &"
                    + " while [ ! -s \"$E\" ]; do sleep 0.01; done; echo leader-done",
                Map.of("E", escapee.toString())),
            ctx);
    long pid = Long.parseLong(awaitFile(escapee));
    try {
      assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
      assertThat(r.outputTail()).isEqualTo("leader-done\n");
      assertThat(isRunning(pid)).as("the escapee survived the group kill").isTrue();
    } finally {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  // ---- environment

  @Test
  void environmentIsCleanWithQl3VariablesAndNoAgentSecrets() throws Exception {
    CancellationSignal signal = new CancellationSignal();
    Path runDir = tmp.resolve("runs/env-1");
    ExecutionContext ctx =
        new ExecutionContext(
            new RunId("env-1"),
            2,
            "order-42:sha256:abc",
            runDir.resolve("work"),
            runDir.resolve("output.log"),
            LONG,
            signal,
            clock);
    ProcessExecutor ex =
        executor(
            ProcessExecutorSettings.defaults()
                .withPassEnvironment(Set.of("TZ", "NOT_SET_ANYWHERE")));
    ProcessSpec spec =
        new ProcessSpec(List.of("env"), null, Map.of("FOO", "bar baz", "QL3_RUN_ID", "spoofed"));
    ExecutionResult r = run(ex, spec, ctx);

    Map<String, String> env = new TreeMap<>();
    for (String line : r.outputTail().split("\n")) {
      int eq = line.indexOf('=');
      env.put(line.substring(0, eq), line.substring(eq + 1));
    }
    String work = ctx.workDirectory().toRealPath().toString();
    assertThat(env)
        .containsOnlyKeys(
            "PATH",
            "HOME",
            "TMPDIR",
            "LANG",
            "TZ",
            "FOO",
            "QL3_RUN_ID",
            "QL3_ATTEMPT",
            "QL3_IDEMPOTENCY_KEY",
            "QL3_WORK_DIR")
        .containsEntry("QL3_RUN_ID", "env-1")
        .containsEntry("QL3_ATTEMPT", "2")
        .containsEntry("QL3_IDEMPOTENCY_KEY", "order-42:sha256:abc")
        .containsEntry("QL3_WORK_DIR", work)
        .containsEntry("HOME", work)
        .containsEntry("PATH", ProcessExecutorSettings.DEFAULT_PATH)
        .containsEntry("LANG", "C.UTF-8")
        .containsEntry("TZ", "UTC")
        .containsEntry("FOO", "bar baz");
    assertThat(r.outputTail()).doesNotContain("hunter2").doesNotContain("do-not-leak");
    for (Map.Entry<String, String> e : System.getenv().entrySet()) {
      if (!env.containsKey(e.getKey())) {
        assertThat(r.outputTail()).doesNotContain(e.getKey() + "=");
      }
    }
  }

  // ---- working directory

  @Test
  void cwdIsCreatedInsideTheWorkDirectory() throws Exception {
    ExecutionContext ctx = context("cwd-1");
    ProcessSpec spec = new ProcessSpec(List.of("pwd"), "a/./b/c", Map.of());
    ExecutionResult r = run(executor(), spec, ctx);
    assertThat(r.outputTail()).isEqualTo(ctx.workDirectory().toRealPath().resolve("a/b/c") + "\n");
  }

  @Test
  void lexicalEscapesAreRejectedAsInvalidSpecs() {
    for (String cwd : List.of("..", "../x", "a/../../x", "/etc", "a\\b", "")) {
      String json =
          "{\"argv\":[\"true\"],\"cwd\":\"" + cwd.replace("\\", "\\\\") + "\",\"env\":{}}";
      assertThatThrownBy(() -> ExecutorSpec.parse("process", json.getBytes(StandardCharsets.UTF_8)))
          .as("cwd %s", cwd)
          .isInstanceOf(ContractViolation.class);
    }
  }

  @Test
  void lexicalEscapesAreRefusedAgainWhenResolving() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("lexical")).toRealPath();
    for (String cwd : List.of("..", "a/../../x", "/etc", "a\\b", "")) {
      assertThatThrownBy(() -> WorkingDirectory.resolve(work, cwd))
          .as("cwd %s", cwd)
          .isInstanceOf(PrepareFailedException.class)
          .satisfies(
              e ->
                  assertThat(((PrepareFailedException) e).failure().code())
                      .isEqualTo("cwd_outside_work_dir"));
    }
  }

  @Test
  void symlinkLeadingOutsideIsRefusedAndNothingIsCreatedOutside() throws Exception {
    ExecutionContext ctx = context("cwd-link");
    Path work = Files.createDirectories(ctx.workDirectory());
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.createSymbolicLink(work.resolve("link"), outside);
    Files.createDirectories(work.resolve("real/inner"));
    Files.createSymbolicLink(work.resolve("real/up"), Path.of("../.."));

    for (String cwd : List.of("link", "link/deeper", "real/up", "real/up/x")) {
      ProcessSpec spec = new ProcessSpec(List.of("pwd"), cwd, Map.of());
      assertThatThrownBy(() -> executor().prepare(spec, ctx))
          .as("cwd %s", cwd)
          .isInstanceOf(PrepareFailedException.class)
          .satisfies(
              e -> {
                assertThat(((PrepareFailedException) e).failure().code())
                    .isEqualTo("cwd_outside_work_dir");
                assertThat(((PrepareFailedException) e).failure().category())
                    .isEqualTo(FailureCategory.PERMANENT);
              });
    }
    assertThat(outside.resolve("deeper")).doesNotExist();
    assertThat(tmp.resolve("runs/x")).doesNotExist();

    // A symlink that stays inside is fine.
    Files.createSymbolicLink(work.resolve("inside"), Path.of("real/inner"));
    ExecutionResult r =
        run(executor(), new ProcessSpec(List.of("pwd"), "inside/more", Map.of()), ctx);
    assertThat(r.outputTail()).isEqualTo(work.toRealPath().resolve("real/inner/more") + "\n");
  }

  @Test
  void cwdThatIsAFileIsRefused() throws Exception {
    ExecutionContext ctx = context("cwd-file");
    Files.createDirectories(ctx.workDirectory());
    Files.writeString(ctx.workDirectory().resolve("f"), "x");
    assertThatThrownBy(
            () -> executor().prepare(new ProcessSpec(List.of("pwd"), "f", Map.of()), ctx))
        .isInstanceOf(PrepareFailedException.class)
        .satisfies(
            e ->
                assertThat(((PrepareFailedException) e).failure().code())
                    .isEqualTo("cwd_not_directory"));
  }

  // ---- programs that cannot start

  @Test
  void missingOrNonExecutableProgramsFailAtPrepare() throws Exception {
    ExecutionContext ctx = context("nocmd");
    assertThatThrownBy(
            () ->
                executor()
                    .prepare(new ProcessSpec(List.of("no-such-program-ql3"), null, Map.of()), ctx))
        .isInstanceOf(PrepareFailedException.class)
        .satisfies(
            e ->
                assertThat(((PrepareFailedException) e).failure().code())
                    .isEqualTo("command_not_found"));
    Files.createDirectories(ctx.workDirectory());
    Files.writeString(ctx.workDirectory().resolve("data.txt"), "not a program");
    assertThatThrownBy(
            () -> executor().prepare(new ProcessSpec(List.of("./data.txt"), null, Map.of()), ctx))
        .isInstanceOf(PrepareFailedException.class)
        .satisfies(
            e ->
                assertThat(((PrepareFailedException) e).failure().code())
                    .isEqualTo("command_not_executable"));
  }

  @Test
  void aLaunchTheOperatingSystemRefusesCompletesFailedWithoutPid() throws Exception {
    ProcessExecutorSettings broken =
        new ProcessExecutorSettings(
            Set.of(),
            1 << 20,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            ProcessExecutorSettings.DEFAULT_PATH,
            "C.UTF-8",
            Set.of(),
            Path.of("/nonexistent/setsid"));
    RunHandle handle = executor(broken).prepare(sh("true"), context("spawn-fail")).launch();
    ExecutionResult r = await(handle);
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().code()).isEqualTo("spawn_failed");
    assertThat(r.exitCode()).isNull();
    assertThat(handle.pid()).isEmpty();
  }

  @Test
  void validateRejectsSpecsOfOtherExecutorsAndPreparedRunsAreSingleUse() throws Exception {
    assertThatThrownBy(() -> executor().validate(NoopSpec.INSTANCE))
        .isInstanceOf(SpecRejectedException.class);
    ExecutionContext ctx = context("single-use");
    PreparedRun discarded = executor().prepare(sh("true"), ctx);
    discarded.discard();
    assertThatThrownBy(discarded::launch).isInstanceOf(IllegalStateException.class);
    PreparedRun launched = executor().prepare(sh("true"), context("single-use-2"));
    await(launched.launch());
    assertThatThrownBy(launched::launch).isInstanceOf(IllegalStateException.class);
  }

  // ---- output

  @Test
  void outputOverTheLogBoundRotatesAndTheTailIsTheEnd() throws Exception {
    ExecutionContext ctx = context("big-1");
    ProcessExecutor ex = executor(ProcessExecutorSettings.defaults().withMaxLogBytes(4096));
    ExecutionResult r = run(ex, new ProcessSpec(List.of("seq", "1", "20000"), null, Map.of()), ctx);

    StringBuilder expected = new StringBuilder();
    for (int i = 1; i <= 20000; i++) {
      expected.append(i).append('\n');
    }
    byte[] all = expected.toString().getBytes(StandardCharsets.US_ASCII);
    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.outputBytes()).isEqualTo(all.length).isGreaterThan(3 * 4096);

    byte[] current = Files.readAllBytes(ctx.outputLog());
    byte[] rotated = Files.readAllBytes(Path.of(ctx.outputLog() + ".1"));
    assertThat(rotated).hasSize(4096);
    int rest = all.length % 4096 == 0 ? 4096 : all.length % 4096;
    assertThat(current).hasSize(rest);
    byte[] both = new byte[rotated.length + current.length];
    System.arraycopy(rotated, 0, both, 0, rotated.length);
    System.arraycopy(current, 0, both, rotated.length, current.length);
    assertThat(both)
        .isEqualTo(java.util.Arrays.copyOfRange(all, all.length - both.length, all.length));

    assertThat(r.outputTail()).isEqualTo(OutputTail.fit(expected.toString()));
    assertThat(expected.toString()).endsWith(r.outputTail());
    int escaped =
        r.outputTail().length() + (int) r.outputTail().chars().filter(c -> c == '\n').count();
    assertThat(escaped).isBetween(16384 - 6, 16384);
  }

  @Test
  void invalidUtf8OutputIsReplaced() throws Exception {
    ExecutionResult r =
        run(
            executor(),
            new ProcessSpec(
                List.of("printf", "ok \\377\\376 end \\342\\202\\254\\n"), null, Map.of()),
            context("utf8-1"));
    assertThat(r.outputTail()).isEqualTo("ok \uFFFD\uFFFD end \u20AC\n");
    assertThat(r.outputBytes()).isEqualTo(14);
  }

  @Test
  void concurrentRunsKeepTheirOwnOutput() throws Exception {
    ProcessExecutor ex = executor();
    List<RunHandle> handles = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      handles.add(
          ex.prepare(sh("echo \"$QL3_RUN_ID\"; echo \"$QL3_RUN_ID\" >&2"), context("par-" + i))
              .launch());
    }
    Map<String, String> tails = new HashMap<>();
    for (int i = 0; i < 6; i++) {
      tails.put("par-" + i, await(handles.get(i)).outputTail());
    }
    for (int i = 0; i < 6; i++) {
      assertThat(tails.get("par-" + i)).isEqualTo("par-" + i + "\npar-" + i + "\n");
    }
  }
}
