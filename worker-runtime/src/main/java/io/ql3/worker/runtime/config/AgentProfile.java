package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.isolation.RunLimits;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The two deployment profiles. A profile gives the defaults and the bounds a configuration file may
 * override within; it is chosen on the command line ({@code --profile edge|node}).
 */
public enum AgentProfile {
  /** Small devices: few slots, one offer per pull, a slow cadence. */
  EDGE(
      new ProfileDefaults(
          Duration.ofSeconds(1),
          new Bounds(250, 10_000),
          2,
          new Bounds(1, 8),
          1,
          new Bounds(1, 4),
          Duration.ofSeconds(55),
          Duration.ofMinutes(5))),
  /** Bigger hosts: more slots, pages of offers, a fast cadence. */
  NODE(
      new ProfileDefaults(
          Duration.ofMillis(250),
          new Bounds(50, 5_000),
          16,
          new Bounds(1, 1024),
          8,
          new Bounds(1, 64),
          Duration.ofSeconds(55),
          Duration.ofMinutes(15)));

  private final ProfileDefaults defaults;

  AgentProfile(ProfileDefaults defaults) {
    this.defaults = defaults;
  }

  public ProfileDefaults defaults() {
    return defaults;
  }

  /**
   * Default per-run cgroup limits: edge 512 MiB / 512 tasks, node 4 GiB / 4096 tasks, cpu.weight
   * 100 (the kernel's default) on both.
   */
  public RunLimits runLimits() {
    return this == EDGE
        ? new RunLimits(OptionalLong.of(512 * RunLimits.MIB), OptionalLong.of(512), 100)
        : new RunLimits(OptionalLong.of(4096 * RunLimits.MIB), OptionalLong.of(4096), 100);
  }

  /** The name used on the command line and on the wire ({@code edge}, {@code node}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code edge} or {@code node}; anything else is refused with the accepted names. */
  public static AgentProfile fromWireName(String name) {
    for (AgentProfile p : values()) {
      if (p.wireName().equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown profile '" + name + "' (expected edge or node)");
  }

  /** Inclusive integer bounds. */
  public record Bounds(long min, long max) {
    public boolean contains(long value) {
      return value >= min && value <= max;
    }

    @Override
    public String toString() {
      return min + ".." + max;
    }
  }

  /**
   * Defaults and bounds of one profile.
   *
   * @param cadence the period of the single cadence timer
   * @param cadenceBoundsMs what a configuration may set it to, in milliseconds
   * @param maxConcurrentRuns default slot budget
   * @param maxConcurrentRunsBounds what a configuration may set it to
   * @param pullPage default maximum offers per pull
   * @param pullPageBounds what a configuration may set it to (always within the contract's 1..64)
   * @param longPoll the longest {@code waitMs} of a parked pull over h2
   * @param drainTimeout how long a drain waits for runs before cancelling them cooperatively
   */
  public record ProfileDefaults(
      Duration cadence,
      Bounds cadenceBoundsMs,
      int maxConcurrentRuns,
      Bounds maxConcurrentRunsBounds,
      int pullPage,
      Bounds pullPageBounds,
      Duration longPoll,
      Duration drainTimeout) {}
}
