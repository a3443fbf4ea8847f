package io.ql3.worker.runtime.cadence;

/**
 * A monotonic clock in nanoseconds. Injected everywhere time matters so tests drive it by hand;
 * production uses {@link #SYSTEM} ({@link System#nanoTime()}).
 */
@FunctionalInterface
public interface Ticker {
  Ticker SYSTEM = System::nanoTime;

  long nanoTime();
}
