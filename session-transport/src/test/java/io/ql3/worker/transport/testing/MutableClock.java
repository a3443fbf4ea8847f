package io.ql3.worker.transport.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand. */
public final class MutableClock extends Clock {
  private volatile Instant now;

  public MutableClock(Instant start) {
    this.now = start;
  }

  public void advance(Duration d) {
    now = now.plus(d);
  }

  /**
   * Moves forward by at least {@code d}, and to at least real time plus {@code d}: files just
   * written (their mtime is real time) then count as quiet for {@code d}.
   */
  public void realNowPlus(Duration d) {
    Instant byReal = Instant.now().plus(d);
    Instant byStep = now.plus(d);
    now = byReal.isAfter(byStep) ? byReal : byStep;
  }

  public void set(Instant instant) {
    now = instant;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
