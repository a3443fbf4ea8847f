package io.ql3.worker.transport;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * The one bounded exponential backoff of the agent, with "equal jitter": after n consecutive
 * failures the wait is between half and all of min(max, base * 2^(n-1)), so a fleet that failed
 * together does not retry in lockstep and nothing hot-loops. Used stateless by the connection
 * ({@link #delayNanos(int)}, it counts its own failed connects) and stateful by the session and
 * execution retries ({@link #nextDelayNanos()}, {@link #reset()}).
 */
public final class Backoff {
  private final long baseNanos;
  private final long maxNanos;
  private final DoubleSupplier random;
  private int failures;

  /**
   * @param random uniform in [0, 1)
   */
  public Backoff(Duration base, Duration max, DoubleSupplier random) {
    this.baseNanos = base.toNanos();
    this.maxNanos = Math.max(max.toNanos(), baseNanos);
    this.random = random;
  }

  /**
   * @param failures consecutive failed attempts, at least 1
   */
  public long delayNanos(int failures) {
    int shift = Math.min(Math.max(failures - 1, 0), 30);
    long ceiling =
        baseNanos > (maxNanos >> shift) ? maxNanos : Math.min(maxNanos, baseNanos << shift);
    double r = random.getAsDouble();
    return ceiling / 2 + (long) (ceiling / 2.0 * r);
  }

  /** Counts one more failure and returns the delay before the next try. */
  public long nextDelayNanos() {
    failures = Math.min(failures + 1, 64);
    return delayNanos(failures);
  }

  /** A success: the next failure waits the base delay again. */
  public void reset() {
    failures = 0;
  }

  public int failures() {
    return failures;
  }
}
