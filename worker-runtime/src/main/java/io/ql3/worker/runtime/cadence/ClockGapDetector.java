package io.ql3.worker.runtime.cadence;

/**
 * Notices time the monotonic clock did not count: a suspended host (laptop lid, VM pause, an edge
 * board's sleep) stops {@code CLOCK_MONOTONIC}, which {@link System#nanoTime()} reads, but not the
 * server's clock, so every lease the agent measures with it would look longer than it is. Between
 * two cadence steps the wall clock and the ticker normally advance alike; when the wall clock
 * advanced more than {@link #threshold} beyond the ticker, the difference is reported as lost. A
 * forward step of the wall clock (NTP fixing a wrong boot clock) reads the same and is treated the
 * same: conservatively (see docs/reliability.md). SIGSTOP stops neither clock and shows no gap.
 */
public final class ClockGapDetector {
  private final long thresholdNanos;
  private boolean primed;
  private long lastTicker;
  private long lastWallMillis;

  /**
   * @param thresholdNanos the smallest difference reported (well above scheduling jitter)
   */
  public ClockGapDetector(long thresholdNanos) {
    this.thresholdNanos = thresholdNanos;
  }

  public long threshold() {
    return thresholdNanos;
  }

  /** Nanoseconds the ticker missed since the previous call, or 0. */
  public long lost(long tickerNanos, long wallMillis) {
    if (!primed) {
      primed = true;
      lastTicker = tickerNanos;
      lastWallMillis = wallMillis;
      return 0;
    }
    long ticker = tickerNanos - lastTicker;
    long wall = (wallMillis - lastWallMillis) * 1_000_000L;
    lastTicker = tickerNanos;
    lastWallMillis = wallMillis;
    long lost = wall - ticker;
    return lost > thresholdNanos ? lost : 0;
  }
}
