package io.ql3.worker.runtime.cadence;

/**
 * A point on the {@link Ticker}'s time line that may be unset. {@link System#nanoTime()} may be
 * negative and only differences are meaningful, so "no deadline" cannot be a sentinel value such as
 * {@code Long.MIN_VALUE}: {@code now - Long.MIN_VALUE} overflows. Compare only through this.
 */
public final class Deadline {
  private boolean set;
  private long at;

  /** Sets the deadline to {@code nanos}. */
  public void set(long nanos) {
    set = true;
    at = nanos;
  }

  public void clear() {
    set = false;
  }

  public boolean isSet() {
    return set;
  }

  /** True when set and {@code now} is at or past it. */
  public boolean reached(long now) {
    return set && now - at >= 0;
  }

  /** True when set and {@code now} is before it (a "not before" that still holds). */
  public boolean pending(long now) {
    return set && now - at < 0;
  }

  /** Moves a set deadline {@code nanos} earlier (time the ticker did not see passed). */
  public void earlier(long nanos) {
    at -= nanos;
  }

  /** Nanoseconds from {@code now} to the deadline (negative when past); 0 when unset. */
  public long remaining(long now) {
    return set ? at - now : 0;
  }
}
