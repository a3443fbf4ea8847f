package io.ql3.worker.runtime.retry;

import java.util.random.RandomGenerator;

/**
 * Bounded exponential backoff with jitter, in nanoseconds, for retrying a session request after a
 * transient failure. No hot loop: the first retry waits {@code base}, each further one twice as
 * long, up to {@code max}; jitter spreads a fleet that failed together.
 */
public final class Backoff {
  private final long baseNanos;
  private final long maxNanos;
  private final RandomGenerator random;
  private int failures;

  public Backoff(long baseNanos, long maxNanos, RandomGenerator random) {
    this.baseNanos = baseNanos;
    this.maxNanos = Math.max(baseNanos, maxNanos);
    this.random = random;
  }

  /** The delay before the next try after one more failure (full jitter over the upper half). */
  public long nextDelayNanos() {
    int shift = Math.min(failures, 30);
    failures++;
    long ceiling = Math.min(maxNanos, baseNanos << shift);
    if (ceiling <= 0) {
      ceiling = maxNanos;
    }
    long half = ceiling / 2;
    return half + (half > 0 ? random.nextLong(half + 1) : 0);
  }

  public void reset() {
    failures = 0;
  }

  public int failures() {
    return failures;
  }
}
