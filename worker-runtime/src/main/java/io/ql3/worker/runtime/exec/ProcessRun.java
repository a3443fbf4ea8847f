package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One process run, from prepared to completed. The main process is started through
 * {@code setsid}, so it leads its own process group (pgid = pid) and every descendant that does
 * not leave the group can be signalled with it.
 *
 * <p>Life: PREPARED → RUNNING → (TERMINATING on cancel/timeout: SIGTERM to the group, SIGKILL
 * after the grace) → EXITED (main process reaped; SIGKILL to whatever is left of the group) →
 * COMPLETED (output ended, or the drain timeout passed). No thread of its own except the
 * output pump: exits come from the JDK's shared process reaper, timers from the context clock.
 */
final class ProcessRun implements PreparedRun, RunHandle {

  private static final System.Logger LOG = System.getLogger(ProcessRun.class.getName());

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
  private final ProcessGroupSignaller signaller;
  private final ProcessBuilder builder;
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
  private volatile Instant startedAt;
  private volatile long startNanos;

  ProcessRun(
      ExecutionContext context,
      ProcessExecutorSettings settings,
      ProcessGroupSignaller signaller,
      ProcessBuilder builder,
      RotatingLog log) {
    this.context = context;
    this.settings = settings;
    this.signaller = signaller;
    this.builder = builder;
    this.log = log;
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
        throw new IllegalStateException("run " + context.runId() + " is " + state + ", not PREPARED");
      }
      startedAt = context.clock().now();
      startNanos = context.clock().nanoTime();
      if (context.cancellation().isCancelled()) {
        // Never start what is already cancelled.
        move(State.COMPLETED);
        closeLog();
        Failure why = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
        result.complete(
            ExecutionResult.cancelled(
                Failures.of(why.category(), why.code(), why.message() + " (before the process started)"),
                0));
        return this;
      }
      // Armed before the process exists: if the clock refuses (closed), nothing was started.
      timeoutTask =
          context.clock().schedule(context.timeout(), () -> terminate(ProcessOutcomes.Termination.TIMEOUT));
      Process p;
      try {
        p = builder.start();
      } catch (IOException | RuntimeException e) {
        move(State.COMPLETED);
        timeoutTask.cancel();
        timeoutTask = null;
        closeLog();
        result.complete(
            ExecutionResult.failed(
                Failures.transientFailure("spawn_failed", "cannot start the process: " + e.getMessage()),
                0));
        return this;
      }
      process = p;
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

  @Override
  public void discard() {
    synchronized (lock) {
      if (state != State.PREPARED) {
        throw new IllegalStateException("run " + context.runId() + " is " + state + ", not PREPARED");
      }
      move(State.DISCARDED);
    }
    closeLog();
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
      terminationDetail = "SIGTERM sent to its process group";
    }
    long pgid = process.pid();
    signaller
        .signal(pgid, "TERM")
        .thenAccept(
            delivered -> {
              // No group yet: the child has not run setsid() so far; it is alone, signal it.
              if (!delivered && process.isAlive()) {
                process.destroy();
              }
            });
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
          "SIGTERM sent to its process group, SIGKILL after the " + settings.killGrace().toMillis()
              + " ms grace";
    }
    signaller
        .signal(process.pid(), "KILL")
        .thenAccept(
            delivered -> {
              if (!delivered && process.isAlive()) {
                process.destroyForcibly();
              }
            });
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
    // The main process is gone; nothing of the run may outlive it: kill the rest of its group.
    signaller.signal(p.pid(), "KILL").whenComplete((delivered, error) -> guarded(this::awaitOutput));
  }

  private void awaitOutput() {
    ExecutionClock.Scheduled drain =
        context.clock().schedule(settings.outputDrainTimeout(), () -> guarded(() -> finish(true)));
    capture
        .finished()
        .thenRun(
            () -> {
              drain.cancel();
              guarded(() -> finish(false));
            });
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
          "run " + context.runId() + ": output still open " + settings.outputDrainTimeout().toMillis()
              + " ms after the process group was killed (a process left the group?); reporting what was captured");
    }
    OutputCapture.Snapshot out = c.snapshot();
    result.complete(
        ProcessOutcomes.map(
            status,
            why,
            detail,
            reason,
            context.timeout().toMillis(),
            settings.permanentExitCodes(),
            TimeUnit.NANOSECONDS.toMillis(Math.max(0, durationNanos)),
            out.total(),
            out.tail()));
  }

  // ---- helpers

  /**
   * Runs a step of the run's end. A bug there must not leave the result pending for ever (the
   * slot would never free): the run is then reported failed, transient, {@code executor_error}.
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
      OutputCapture c = capture;
      if (c != null) {
        c.detach();
      }
      result.complete(
          ExecutionResult.failed(
              Failures.transientFailure("executor_error", "process executor failure: " + e), 0));
    }
  }

  private void move(State to) {
    // caller holds lock
    if (!ALLOWED.get(state).contains(to)) {
      throw new IllegalStateException("run " + context.runId() + ": " + state + " -> " + to + " not allowed");
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
