package io.ql3.worker.runtime.isolation;

import java.util.OptionalLong;

/**
 * What one run attempt used, read from its cgroup when it ended. Each figure is empty where the
 * host does not report it (no cgroup, controller not enabled, {@code memory.peak} before Linux
 * 5.19).
 *
 * @param peakMemoryBytes {@code memory.peak}
 * @param cpuMicros {@code cpu.stat usage_usec}: user + system time of every process of the run
 * @param memoryLimitKills {@code memory.events oom_kill}: processes the run's own memory limit
 *     killed
 */
public record RunUsage(
    OptionalLong peakMemoryBytes, OptionalLong cpuMicros, long memoryLimitKills) {

  public static final RunUsage UNKNOWN =
      new RunUsage(OptionalLong.empty(), OptionalLong.empty(), 0);

  /** True when the run's memory limit killed at least one of its processes. */
  public boolean hitMemoryLimit() {
    return memoryLimitKills > 0;
  }

  static RunUsage of(Cgroup cg) {
    return new RunUsage(
        cg.single("memory.peak"),
        cg.keyed("cpu.stat", "usage_usec"),
        cg.keyed("memory.events", "oom_kill").orElse(0));
  }
}
