package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One {@code sleep} run: three ways to end (the sleep elapses, the timeout elapses, the run is
 * cancelled), the first one wins; the others are withdrawn.
 */
final class SleepRun implements PreparedRun, RunHandle {

  private enum State {
    PREPARED,
    SLEEPING,
    DONE
  }

  private final ExecutionContext context;
  private final long ms;
  private final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
  private final Object lock = new Object();
  // guarded by lock
  private State state = State.PREPARED;
  private ExecutionClock.Scheduled wake;
  private ExecutionClock.Scheduled timeout;
  private CancellationSignal.Registration cancelRegistration;
  private Instant startedAt;
  private long startNanos;

  SleepRun(ExecutionContext context, long ms) {
    this.context = context;
    this.ms = ms;
  }

  @Override
  public RunHandle launch() {
    synchronized (lock) {
      if (state != State.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " was already launched or discarded");
      }
      state = State.SLEEPING;
      startedAt = context.clock().now();
      startNanos = context.clock().nanoTime();
      if (ms > 0) {
        wake = context.clock().schedule(Duration.ofMillis(ms), () -> end(null));
        timeout = context.clock().schedule(context.timeout(), this::timedOut);
      }
    }
    if (ms == 0) {
      end(null); // outside the lock: dependents of the result run on this thread
      return this;
    }
    CancellationSignal.Registration r = context.cancellation().onCancel(this::cancelled);
    synchronized (lock) {
      if (state == State.SLEEPING) {
        cancelRegistration = r;
        return this;
      }
    }
    r.close();
    return this;
  }

  @Override
  public void discard() {
    synchronized (lock) {
      if (state != State.PREPARED) {
        throw new IllegalStateException(
            "run " + context.runId() + " was already launched or discarded");
      }
      state = State.DONE;
    }
  }

  private void timedOut() {
    end(
        ExecutionResult.failed(
            Failures.transientFailure(
                "task_timeout", "task timed out after " + context.timeout().toMillis() + " ms"),
            elapsedMs()));
  }

  private void cancelled() {
    Failure why = context.cancellation().reason().orElse(CancellationSignal.DEFAULT_REASON);
    end(ExecutionResult.cancelled(why, elapsedMs()));
  }

  /**
   * @param r the result, or null for "the sleep elapsed"
   */
  private void end(ExecutionResult r) {
    ExecutionClock.Scheduled w;
    ExecutionClock.Scheduled t;
    CancellationSignal.Registration c;
    synchronized (lock) {
      if (state != State.SLEEPING) {
        return;
      }
      state = State.DONE;
      w = wake;
      t = timeout;
      c = cancelRegistration;
    }
    if (w != null) {
      w.cancel();
    }
    if (t != null) {
      t.cancel();
    }
    if (c != null) {
      c.close();
    }
    result.complete(r != null ? r : ExecutionResult.succeeded(elapsedMs()));
  }

  private long elapsedMs() {
    long start;
    synchronized (lock) {
      start = startNanos;
    }
    return TimeUnit.NANOSECONDS.toMillis(Math.max(0, context.clock().nanoTime() - start));
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  @Override
  public Instant startedAt() {
    synchronized (lock) {
      if (startedAt == null) {
        throw new IllegalStateException("run " + context.runId() + " was not launched");
      }
      return startedAt;
    }
  }

  @Override
  public CompletableFuture<ExecutionResult> result() {
    return result.copy();
  }
}
