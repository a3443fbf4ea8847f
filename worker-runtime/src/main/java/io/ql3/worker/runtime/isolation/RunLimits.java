package io.ql3.worker.runtime.isolation;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * The per-run cgroup limits ({@code execution.memory-max}, {@code execution.pids-max}, {@code
 * execution.cpu-weight}). Empty means "max" (no limit). Written into each run's cgroup only where
 * the controller is enabled for the agent's subtree.
 *
 * @param memoryMaxBytes {@code memory.max} of each run (and {@code memory.swap.max} 0 is not set:
 *     swap follows the host's policy)
 * @param pidsMax {@code pids.max} of each run: tasks (processes and threads) at once
 * @param cpuWeight {@code cpu.weight} of each run, 1..10000 (the kernel's default is 100)
 */
public record RunLimits(OptionalLong memoryMaxBytes, OptionalLong pidsMax, int cpuWeight) {

  public static final long MIB = 1024L * 1024;
  public static final long MIN_MEMORY_BYTES = 4 * MIB;

  public RunLimits {
    if (memoryMaxBytes.isPresent() && memoryMaxBytes.getAsLong() < MIN_MEMORY_BYTES) {
      throw new IllegalArgumentException(
          "memory-max must be at least 4M: " + memoryMaxBytes.getAsLong());
    }
    if (pidsMax.isPresent() && pidsMax.getAsLong() < 1) {
      throw new IllegalArgumentException("pids-max must be at least 1: " + pidsMax.getAsLong());
    }
    if (cpuWeight < 1 || cpuWeight > 10_000) {
      throw new IllegalArgumentException("cpu-weight must be in 1..10000: " + cpuWeight);
    }
  }

  /** The value written to {@code memory.max}. */
  public String memoryMaxValue() {
    return memoryMaxBytes.isPresent() ? Long.toString(memoryMaxBytes.getAsLong()) : "max";
  }

  /** The value written to {@code pids.max}. */
  public String pidsMaxValue() {
    return pidsMax.isPresent() ? Long.toString(pidsMax.getAsLong()) : "max";
  }

  /**
   * Parses a memory size as the configuration writes it: {@code "max"}, a number of bytes, or a
   * number with a binary suffix {@code K}, {@code M}, {@code G} (as systemd's {@code MemoryMax=}).
   */
  public static OptionalLong parseMemory(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    if (t.equals("MAX")) {
      return OptionalLong.empty();
    }
    long unit = 1;
    char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
    if (last == 'K' || last == 'M' || last == 'G') {
      unit = last == 'K' ? 1024 : last == 'M' ? MIB : 1024 * MIB;
      t = t.substring(0, t.length() - 1);
    }
    if (!t.matches("[0-9]{1,12}")) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a memory size (\"max\", bytes, or a number with K, M or G)");
    }
    return OptionalLong.of(Math.multiplyExact(Long.parseLong(t), unit));
  }

  /** Parses a task count: {@code "max"} or a positive number. */
  public static OptionalLong parsePids(String text) {
    String t = text.trim();
    if (t.equals("max")) {
      return OptionalLong.empty();
    }
    if (!t.matches("[0-9]{1,9}")) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a task count (\"max\" or a number)");
    }
    return OptionalLong.of(Long.parseLong(t));
  }

  @Override
  public String toString() {
    return "memory.max="
        + memoryMaxValue()
        + " pids.max="
        + pidsMaxValue()
        + " cpu.weight="
        + cpuWeight;
  }

  /** Renders a memory size back the way the configuration writes it. */
  static String formatMemory(OptionalLong bytes) {
    if (bytes.isEmpty()) {
      return "max";
    }
    long b = bytes.getAsLong();
    if (b % (1024 * MIB) == 0) {
      return b / (1024 * MIB) + "G";
    }
    if (b % MIB == 0) {
      return b / MIB + "M";
    }
    return Long.toString(b);
  }
}
