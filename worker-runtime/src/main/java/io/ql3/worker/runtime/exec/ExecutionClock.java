package io.ql3.worker.runtime.exec;

import java.time.Duration;
import java.time.Instant;

/**
 * Time as executors see it: a wall clock for start instants, a monotonic clock for durations, and
 * one-shot timers for timeouts and kill grace periods. Production uses {@link SystemExecutionClock}
 * (one shared named thread for every run); tests drive a manual implementation by hand.
 */
public interface ExecutionClock {

  /** Wall-clock now (for recorded start instants). */
  Instant now();

  /** Monotonic nanoseconds (for durations and deadlines); only differences are meaningful. */
  long nanoTime();

  /**
   * Runs {@code task} once, {@code delay} from now, on a thread shared by all runs. The task must
   * be quick and must not block.
   */
  Scheduled schedule(Duration delay, Runnable task);

  /** A pending one-shot task. */
  @FunctionalInterface
  interface Scheduled {
    /** Prevents the task from running if it has not started; idempotent. */
    void cancel();
  }
}
