package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.RunAccount;
import io.ql3.worker.runtime.isolation.RunCgroup;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One process run, from prepared to completed. The main process enters the run's cgroup (when
 * {@link Isolation} gives it one) before any of its code runs, and is started through {@code
 * setsid}, so it also leads its own process group (pgid = pid). {@link RunProcesses} is "every
 * process of the run": the cgroup, else the group.
 *
 * <p>Life: PREPARED → RUNNING → (TERMINATING on cancel/timeout: SIGTERM to the run's processes,
 * SIGKILL after the grace) → EXITED (main process reaped; SIGKILL to whatever is left) → COMPLETED
 * (no process of the run left and its output ended, or the drain timeout passed; the cgroup is then
 * read and removed). No thread of its own except the output pump: exits come from the JDK's shared
 * process reaper, timers from the context clock.
 */
final class ProcessRun implements PreparedRun, RunHandle {

  private static final System.Logger LOG = System.getLogger(ProcessRun.class.getName());
  private static final java.time.Duration EMPTY_POLL = java.time.Duration.ofMillis(5);

  enum State {
    PREPARED,
    RUNNING,
    TERMINATING,
    EXITED,
    COMPLETED,
    DISCARDED
  }

  private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(State.class);

  static {
    ALLOWED.put(State.PREPARED, EnumSet.of(State.RUNNING, State.COMPLETED, State.DISCARDED));
    ALLOWED.put(State.RUNNING, EnumSet.of(State.TERMINATING, State.EXITED));
    ALLOWED.put(State.TERMINATING, EnumSet.of(State.EXITED));
    ALLOWED.put(State.EXITED, EnumSet.of(State.COMPLETED));
    ALLOWED.put(State.COMPLETED, EnumSet.noneOf(State.class));
    ALLOWED.put(State.DISCARDED, EnumSet.noneOf(State.class));
  }

  private final ExecutionContext context;
  private final ProcessExecutorSettings settings;
  private final Isolation isolation;
  private final RunObserver observer;
  private final Launch launch;
  private final RotatingLog log;
  private final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();

  private final Object lock = new Object();
  // guarded by lock
  private State state = State.PREPARED;
  private ProcessOutcomes.Termination termination = ProcessOutcomes.Termination.NONE;
  private String terminationDetail;
  private Failure cancelReason;
  private ExecutionClock.Scheduled timeoutTask;
  private ExecutionClock.Scheduled graceTask;
  private CancellationSignal.Registration cancelRegistration;
  private int exitStatus;
  private long exitNanos;

  // written once by launch() before any callback can run
  private volatile Process process;
  private volatile OutputCapture capture;
  private volatile RunProcesses processes;
  private volatile Instant startedAt;
  private volatile long startNanos;

  ProcessRun(
      ExecutionContext context,
      ProcessExecutorSettings settings,
      Isolation isolation,
      RunObserver observer,
      Launch launch,
      RotatingLog log) {
    this.context = context;
    this.settings = settings;
    this.isolation = isolation;
    this.observer = observer;
    this.launch = launch;
    this.log = log;
  }

  /**
   * What prepare decided: the run's account (held until its work directory is gone), its work
   * directory (made by the account at launch when there is one), the cwd below it, argv, the run's
   * environment and the builder (directory and helper environment set).
   */
  record Launch(
      Optional<RunAccount> account,
      Path workDir,
      String cwdBelow,
      List<String> argv,
      Map<String, String> environment,
      ProcessBuilder builder) {
    Launch {
      argv = List.copyOf(argv);
      environment = new java.util.TreeMap<>(environment);
    }
  }

  State state() {
    synchronized (lock) {
      return state;
    }
  }

  // ---- PreparedRun

  @Override
  public RunHandle launch() {
    synchronized (lock) {
      if (state != State.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " is " + state + ", not PREPARED");
      }
      startedAt = context.clock().now();
      startNanos = context.clock().nanoTime();
      if (context.cancellation().isCancelled()) {
        // Never start what is already cancelled.
        move(State.COMPLETED);
        closeLog();
        launch.account().ifPresent(isolation::releaseAccount); // nothing ran as it
        Failure why = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
        result.complete(
            ExecutionResult.cancelled(
                Failures.of(
                    why.category(), why.code(), why.message() + " (before the process started)"),
                0));
        return this;
      }
      // Armed before the process exists: if the clock refuses (closed), nothing was started.
      timeoutTask =
          context
              .clock()
              .schedule(context.timeout(), () -> terminate(ProcessOutcomes.Termination.TIMEOUT));
      Optional<RunCgroup> cgroup;
      try {
        cgroup = isolation.newRunCgroup(context.runId().value(), context.attempt());
      } catch (IOException | RuntimeException e) {
        failLaunch("cgroup_failed", "cannot create the run's cgroup: " + e.getMessage());
        return this;
      }
      Process p;
      try {
        p =
            launch
                .builder()
                .command(
                    isolation.command(
                        cgroup,
                        launch.account(),
                        settings.setsid(),
                        launch.workDir(),
                        launch.cwdBelow(),
                        launch.argv(),
                        launch.environment()))
                .start();
      } catch (IOException | RuntimeException e) {
        cgroup.ifPresent(RunCgroup::remove);
        failLaunch("spawn_failed", "cannot start the process: " + e.getMessage());
        return this;
      }
      process = p;
      processes = cgroup.map(RunProcesses::of).orElseGet(() -> RunProcesses.ofGroup(p.pid()));
      move(State.RUNNING);
      capture = new OutputCapture(p.getInputStream(), log, context.runId().value());
      capture.start();
    }
    // Outside the lock: an already-cancelled signal runs the listener right here.
    CancellationSignal.Registration registration =
        context.cancellation().onCancel(() -> terminate(ProcessOutcomes.Termination.CANCEL));
    synchronized (lock) {
      if (state == State.RUNNING || state == State.TERMINATING) {
        cancelRegistration = registration;
        registration = null;
      }
    }
    if (registration != null) {
      registration.close(); // already exited: nothing to cancel any more
    }
    process.onExit().whenComplete((p, error) -> guarded(this::onExit));
    return this;
  }

  private void failLaunch(String code, String message) {
    // caller holds lock
    move(State.COMPLETED);
    timeoutTask.cancel();
    timeoutTask = null;
    closeLog();
    launch.account().ifPresent(isolation::releaseAccount); // nothing ran as it
    result.complete(ExecutionResult.failed(Failures.transientFailure(code, message), 0));
  }

  @Override
  public void discard() {
    synchronized (lock) {
      if (state != State.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " is " + state + ", not PREPARED");
      }
      move(State.DISCARDED);
    }
    closeLog();
    launch.account().ifPresent(isolation::releaseAccount); // nothing ran as it
  }

  // ---- RunHandle

  @Override
  public OptionalLong pid() {
    Process p = process;
    return p == null ? OptionalLong.empty() : OptionalLong.of(p.pid());
  }

  @Override
  public Instant startedAt() {
    Instant at = startedAt;
    if (at == null) {
      throw new IllegalStateException("run " + context.runId() + " was not launched");
    }
    return at;
  }

  @Override
  public CompletableFuture<ExecutionResult> result() {
    return result.copy();
  }

  // ---- termination

  private void terminate(ProcessOutcomes.Termination why) {
    synchronized (lock) {
      if (state != State.RUNNING) {
        return; // already terminating (first reason wins) or already exited
      }
      move(State.TERMINATING);
      termination = why;
      if (why == ProcessOutcomes.Termination.CANCEL) {
        cancelReason = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
      }
      terminationDetail = "SIGTERM sent to its processes";
    }
    processes.terminate();
    // The main process may not have entered its group or cgroup yet: it is alone, signal it
    // (through its handle: Process.destroy() would also close the output pipe).
    process.toHandle().destroy();
    ExecutionClock.Scheduled grace = context.clock().schedule(settings.killGrace(), this::escalate);
    synchronized (lock) {
      if (state == State.TERMINATING) {
        graceTask = grace;
        return;
      }
    }
    grace.cancel();
  }

  private void escalate() {
    synchronized (lock) {
      if (state != State.TERMINATING) {
        return;
      }
      terminationDetail =
          "SIGTERM sent to its processes, SIGKILL after the "
              + settings.killGrace().toMillis()
              + " ms grace";
    }
    processes.kill();
    process.toHandle().destroyForcibly();
  }

  private void onExit() {
    Process p = process;
    int status = p.exitValue();
    ExecutionClock.Scheduled timeout;
    ExecutionClock.Scheduled grace;
    CancellationSignal.Registration registration;
    synchronized (lock) {
      move(State.EXITED);
      exitStatus = status;
      exitNanos = context.clock().nanoTime();
      timeout = timeoutTask;
      grace = graceTask;
      registration = cancelRegistration;
      timeoutTask = null;
      graceTask = null;
      cancelRegistration = null;
    }
    if (timeout != null) {
      timeout.cancel();
    }
    if (grace != null) {
      grace.cancel();
    }
    if (registration != null) {
      registration.close();
    }
    // The main process is gone; nothing of the run may outlive it: kill the rest of it.
    processes.kill();
    ExecutionClock.Scheduled drain =
        context.clock().schedule(settings.outputDrainTimeout(), () -> guarded(() -> finish(true)));
    capture.finished().thenRun(() -> guarded(() -> awaitEmpty(drain)));
  }

  /** Finishes once no process of the run is left (a killed process takes a moment to exit). */
  private void awaitEmpty(ExecutionClock.Scheduled drain) {
    if (processes.isEmpty()) {
      drain.cancel();
      finish(false);
      return;
    }
    processes.kill();
    context.clock().schedule(EMPTY_POLL, () -> guarded(() -> awaitEmpty(drain)));
  }

  private void finish(boolean drainTimedOut) {
    ProcessOutcomes.Termination why;
    String detail;
    Failure reason;
    int status;
    long durationNanos;
    synchronized (lock) {
      if (state != State.EXITED) {
        return;
      }
      move(State.COMPLETED);
      why = termination;
      detail = terminationDetail;
      reason = cancelReason;
      status = exitStatus;
      durationNanos = exitNanos - startNanos;
    }
    OutputCapture c = capture;
    c.detach();
    if (drainTimedOut) {
      LOG.log(
          Level.WARNING,
          "run "
              + context.runId()
              + ": output still open or processes still alive "
              + settings.outputDrainTimeout().toMillis()
              + " ms after the run was killed (a process left its group?); reporting what was captured");
    }
    RunUsage usage = processes.release();
    OutputCapture.Snapshot out = c.snapshot();
    ExecutionResult mapped =
        ProcessOutcomes.map(
            status,
            why,
            detail,
            reason,
            context.timeout().toMillis(),
            settings.permanentExitCodes(),
            TimeUnit.NANOSECONDS.toMillis(Math.max(0, durationNanos)),
            out.total(),
            out.tail());
    if (usage.hitMemoryLimit() && mapped.outcome() == Outcome.FAILED) {
      mapped =
          ExecutionResult.of(
              Outcome.FAILED,
              Failures.permanent(
                  "memory_limit",
                  "the run's memory limit (memory.max "
                      + isolation.cgroups().map(t -> t.limits().memoryMaxValue()).orElse("?")
                      + " bytes) killed "
                      + usage.memoryLimitKills()
                      + " of its processes; "
                      + mapped.failure().message()),
              mapped.exitCode(),
              mapped.durationMs(),
              mapped.outputBytes(),
              out.tail());
    }
    try {
      observer.resourcesUsed(context.runId(), context.attempt(), usage);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "run " + context.runId() + ": usage observer failed: " + e);
    }
    ExecutionResult done = mapped;
    removeWorkDirectory(drainTimedOut).whenComplete((v, e) -> result.complete(done));
  }

  /**
   * With a run account: removes the work directory as that account, then gives the account back, or
   * retires it when something is left (the next run with that uid could read it). The run completes
   * after this, so its slot frees only once nothing of it is left.
   */
  private CompletableFuture<Void> removeWorkDirectory(boolean processesMayRemain) {
    if (launch.account().isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    RunAccount account = launch.account().get();
    return isolation
        .removeWorkDirectory(account, launch.workDir(), processesMayRemain)
        .handle(
            (gone, error) -> {
              if (Boolean.TRUE.equals(gone)) {
                isolation.releaseAccount(account);
              } else {
                isolation.retireAccount(account);
                LOG.log(
                    Level.ERROR,
                    "run "
                        + context.runId()
                        + ": its work directory "
                        + launch.workDir()
                        + ", what its uid left in /tmp, /var/tmp, /dev/shm or System V IPC, or a process of it could not be"
                        + " removed as "
                        + account
                        + "; that uid is not given to another run until the agent restarts");
              }
              return null;
            });
  }

  // ---- helpers

  /**
   * Runs a step of the run's end. A bug there must not leave the result pending for ever (the slot
   * would never free): the run is then reported failed, transient, {@code executor_error}.
   */
  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "run " + context.runId() + ": executor failure", e);
      Process p = process;
      if (p != null && p.isAlive()) {
        p.destroyForcibly();
      }
      RunProcesses all = processes;
      if (all != null) {
        all.kill();
        all.release(); // removes the cgroup when it is empty already; else the next start's sweep
        // does
      }
      OutputCapture c = capture;
      if (c != null) {
        c.detach();
      }
      ExecutionResult failed =
          ExecutionResult.failed(
              Failures.transientFailure("executor_error", "process executor failure: " + e), 0);
      removeWorkDirectory(true).whenComplete((v, ex) -> result.complete(failed));
    }
  }

  private void move(State to) {
    // caller holds lock
    if (!ALLOWED.get(state).contains(to)) {
      throw new IllegalStateException(
          "run " + context.runId() + ": " + state + " -> " + to + " not allowed");
    }
    state = to;
  }

  private void closeLog() {
    try {
      log.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "run " + context.runId() + ": closing output log failed: " + e);
    }
  }
}
