package io.ql3.worker.runtime.exec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The real {@link ExecutionClock}: system clocks and ONE daemon thread, {@code ql3-exec-timer},
 * that fires every run's timeouts and kill escalations. Close it when the agent stops.
 */
public final class SystemExecutionClock implements ExecutionClock, AutoCloseable {

  private final Clock wallClock;
  private final ScheduledThreadPoolExecutor timer;

  public SystemExecutionClock() {
    this(Clock.systemUTC());
  }

  public SystemExecutionClock(Clock wallClock) {
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    this.timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "ql3-exec-timer");
              t.setDaemon(true);
              return t;
            });
    // Cancelled timeouts (the common case: runs end before their timeout) must not pile up.
    timer.setRemoveOnCancelPolicy(true);
    timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public Instant now() {
    return wallClock.instant();
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Scheduled schedule(Duration delay, Runnable task) {
    Objects.requireNonNull(task, "task");
    long nanos = Math.max(0, saturatedNanos(delay));
    ScheduledFuture<?> f = timer.schedule(guarded(task), nanos, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  /** Stops the timer thread; pending tasks are dropped. */
  @Override
  public void close() {
    timer.shutdownNow();
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }

  private static Runnable guarded(Runnable task) {
    // The executor would swallow a failure into the unused future: log it instead.
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        System.getLogger(SystemExecutionClock.class.getName())
            .log(System.Logger.Level.ERROR, "timer task failed", e);
      }
    };
  }
}
