package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.RunCgroup;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One process run, from prepared to completed: it starts the child, ends it on cancel or timeout,
 * and reports its result once nothing of it is left. The main process enters the run's cgroup (when
 * {@link Isolation} gives it one) before any of its code runs, and is started through {@code
 * setsid}, so it also leads its own process group (pgid = pid). {@link RunProcesses} is "every
 * process of the run": the cgroup, else the group.
 *
 * <p>Life ({@link ProcessRunState}, moves checked against its table): PREPARED → RUNNING →
 * (TERMINATING on cancel/timeout: SIGTERM to the run's processes, SIGKILL after the grace, see
 * {@link RunSignals}) → EXITED (main process reaped; SIGKILL to whatever is left) → COMPLETED (no
 * process of the run left and its output ended, or the drain timeout passed; the cgroup is then
 * read and removed, the outcome mapped by {@link ProcessOutcomes}, then the work directory removed
 * and the account given back by {@link RunTeardown}). No thread of its own except the output pump:
 * exits come from the JDK's shared process reaper, timers from the context clock.
 */
final class ProcessRun implements PreparedRun, RunHandle {

  private static final System.Logger LOG = System.getLogger(ProcessRun.class.getName());
  private static final java.time.Duration EMPTY_POLL = java.time.Duration.ofMillis(5);

  private final ExecutionContext context;
  private final ProcessExecutorSettings settings;
  private final Isolation isolation;
  private final RunObserver observer;
  private final ProcessLaunch launch;
  private final RotatingLog log;
  private final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();

  private final Object lock = new Object();
  // guarded by lock
  private ProcessRunState state = ProcessRunState.PREPARED;
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
      ProcessLaunch launch,
      RotatingLog log) {
    this.context = context;
    this.settings = settings;
    this.isolation = isolation;
    this.observer = observer;
    this.launch = launch;
    this.log = log;
  }

  // ---- PreparedRun

  @Override
  public RunHandle launch() {
    synchronized (lock) {
      if (state != ProcessRunState.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " is " + state + ", not PREPARED");
      }
      startedAt = context.clock().now();
      startNanos = context.clock().nanoTime();
      if (context.cancellation().isCancelled()) {
        // Never start what is already cancelled.
        move(ProcessRunState.COMPLETED);
        RunTeardown.releaseUnstarted(log, isolation, launch, context.runId());
        Failure why = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
        result.complete(ProcessOutcomes.cancelledBeforeStart(why));
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
        p = launch.start(isolation, cgroup, settings.setsid());
      } catch (IOException | RuntimeException e) {
        cgroup.ifPresent(RunCgroup::remove);
        failLaunch("spawn_failed", "cannot start the process: " + e.getMessage());
        return this;
      }
      process = p;
      processes = cgroup.map(RunProcesses::of).orElseGet(() -> RunProcesses.ofGroup(p.pid()));
      move(ProcessRunState.RUNNING);
      capture = new OutputCapture(p.getInputStream(), log, context.runId().value());
      capture.start();
    }
    // Outside the lock: an already-cancelled signal runs the listener right here.
    CancellationSignal.Registration registration =
        context.cancellation().onCancel(() -> terminate(ProcessOutcomes.Termination.CANCEL));
    synchronized (lock) {
      if (state == ProcessRunState.RUNNING || state == ProcessRunState.TERMINATING) {
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
    move(ProcessRunState.COMPLETED);
    timeoutTask.cancel();
    timeoutTask = null;
    RunTeardown.releaseUnstarted(log, isolation, launch, context.runId());
    result.complete(ProcessOutcomes.launchFailed(code, message));
  }

  @Override
  public void discard() {
    synchronized (lock) {
      if (state != ProcessRunState.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " is " + state + ", not PREPARED");
      }
      move(ProcessRunState.DISCARDED);
    }
    RunTeardown.releaseUnstarted(log, isolation, launch, context.runId());
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
      if (state != ProcessRunState.RUNNING) {
        return; // already terminating (first reason wins) or already exited
      }
      move(ProcessRunState.TERMINATING);
      termination = why;
      if (why == ProcessOutcomes.Termination.CANCEL) {
        cancelReason = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
      }
      terminationDetail = "SIGTERM sent to its processes";
    }
    RunSignals.terminate(processes, process);
    ExecutionClock.Scheduled grace = context.clock().schedule(settings.killGrace(), this::escalate);
    synchronized (lock) {
      if (state == ProcessRunState.TERMINATING) {
        graceTask = grace;
        return;
      }
    }
    grace.cancel();
  }

  private void escalate() {
    synchronized (lock) {
      if (state != ProcessRunState.TERMINATING) {
        return;
      }
      terminationDetail =
          "SIGTERM sent to its processes, SIGKILL after the "
              + settings.killGrace().toMillis()
              + " ms grace";
    }
    RunSignals.kill(processes, process);
  }

  private void onExit() {
    Process p = process;
    int status = p.exitValue();
    ExecutionClock.Scheduled timeout;
    ExecutionClock.Scheduled grace;
    CancellationSignal.Registration registration;
    synchronized (lock) {
      move(ProcessRunState.EXITED);
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
      if (state != ProcessRunState.EXITED) {
        return;
      }
      move(ProcessRunState.COMPLETED);
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
    mapped = ProcessOutcomes.withMemoryLimit(mapped, usage, isolation, out.tail());
    try {
      observer.resourcesUsed(context.runId(), context.attempt(), usage);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "run " + context.runId() + ": usage observer failed: " + e);
    }
    ExecutionResult done = mapped;
    RunTeardown.removeWorkDirectory(isolation, launch, context.runId(), drainTimedOut)
        .whenComplete((v, e) -> result.complete(done));
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
      RunSignals.killAfterFailure(process, processes);
      OutputCapture c = capture;
      if (c != null) {
        c.detach();
      }
      ExecutionResult failed = ProcessOutcomes.executorFailure(e);
      RunTeardown.removeWorkDirectory(isolation, launch, context.runId(), true)
          .whenComplete((v, ex) -> result.complete(failed));
    }
  }

  private void move(ProcessRunState to) {
    // caller holds lock
    if (!state.canMoveTo(to)) {
      throw new IllegalStateException(
          "run " + context.runId() + ": " + state + " -> " + to + " not allowed");
    }
    state = to;
  }
}
