package io.ql3.worker.runtime.isolation;

import java.util.Locale;

/**
 * How strictly runs are isolated from the agent (configuration key {@code execution.isolation}).
 * The table of what each mode protects is in docs/executors.md, "Isolation".
 */
public enum IsolationMode {
  /** Every part (run user, capability to switch to it, writable delegated cgroup) or no start. */
  REQUIRED,
  /** Whatever this host allows, said at start, in {@code status}, {@code check} and a metric. */
  AUTO,
  /** Runs as the agent's own user, no cgroup: a warning at every start. */
  NONE;

  /** The name used in the configuration file. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code required}, {@code auto} or {@code none}. */
  public static IsolationMode fromConfigName(String name) {
    for (IsolationMode m : values()) {
      if (m.configName().equals(name)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "unknown isolation mode '" + name + "' (expected required, auto or none)");
  }
}
