package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import io.ql3.worker.runtime.isolation.IsolationMode;
import io.ql3.worker.runtime.isolation.IsolationSettings;
import io.ql3.worker.runtime.isolation.RunAs;
import io.ql3.worker.runtime.isolation.RunLimits;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads the run isolation keys of the {@code [execution]} table: {@code isolation}, {@code
 * run-user}, {@code run-group}, {@code memory-max}, {@code pids-max}, {@code cpu-weight} (defaults
 * from the profile's {@link AgentProfile#runLimits()}), and refuses the retired {@code
 * run-uid-base}.
 *
 * <p>Errors ({@link ConfigException}): an isolation mode {@link IsolationMode#fromConfigName}
 * refuses; {@code run-uid-base} set; a user or group that is neither a name nor a numeric id, or
 * that {@link RunAs} refuses (also when its ids do not fit the slots); a memory or pids limit that
 * is not {@code "max"}, an integer or a size {@link RunLimits} accepts; {@code cpu-weight} out of
 * its bounds.
 */
final class IsolationReader {
  private IsolationReader() {}

  /** The isolation settings for {@code slots} runs; the caller finishes the table. */
  static IsolationSettings isolation(ConfigTable t, AgentProfile profile, int slots)
      throws ConfigException {
    IsolationMode mode = IsolationMode.AUTO;
    Optional<String> m = t.optionalString("isolation");
    if (m.isPresent()) {
      try {
        mode = IsolationMode.fromConfigName(m.get());
      } catch (IllegalArgumentException e) {
        throw t.error("isolation", e.getMessage());
      }
    }
    if (t.get("run-uid-base") != null) {
      throw t.error(
          "run-uid-base",
          "is no longer read: runs execute as execution.run-user (default "
              + RunAs.DEFAULT_USER
              + ", uid and gid "
              + RunAs.PACKAGED_ID
              + " from the package) and the ids after it, one per slot; write run-user = <that"
              + " uid> instead");
    }
    String user = idOrName(t, "run-user").orElse(RunAs.DEFAULT_USER);
    Optional<String> group = idOrName(t, "run-group");
    RunAs runAs;
    try {
      runAs = new RunAs(user, group);
      runAs.checkFits(slots);
    } catch (IllegalArgumentException e) {
      throw t.error(
          e.getMessage().startsWith("run-group") ? "run-group" : "run-user", e.getMessage());
    }
    RunLimits d = profile.runLimits();
    OptionalLong memory = sizeOrMax(t, "memory-max", d.memoryMaxBytes(), RunLimits::parseMemory);
    OptionalLong pids = sizeOrMax(t, "pids-max", d.pidsMax(), RunLimits::parsePids);
    int weight = (int) t.optionalLong("cpu-weight", d.cpuWeight(), new Bounds(1, 10_000));
    try {
      return new IsolationSettings(mode, runAs, slots, new RunLimits(memory, pids, weight));
    } catch (IllegalArgumentException e) {
      throw t.error(
          e.getMessage().startsWith("memory") ? "memory-max" : "pids-max", e.getMessage());
    }
  }

  /** A user or group written as a name (string) or a numeric id (integer or digits). */
  private static Optional<String> idOrName(ConfigTable t, String key) throws ConfigException {
    Object v = t.get(key);
    if (v == null) {
      return Optional.empty();
    }
    if (v instanceof Number || v instanceof String) {
      return Optional.of(v.toString());
    }
    throw t.error(key, "must be a user or group name or a numeric id");
  }

  /** A limit written as "max", a string with a unit, or an integer. */
  private static OptionalLong sizeOrMax(
      ConfigTable t,
      String key,
      OptionalLong def,
      java.util.function.Function<String, OptionalLong> parse)
      throws ConfigException {
    Object v = t.get(key);
    if (v == null) {
      return def;
    }
    try {
      if (v instanceof Long l) {
        return parse.apply(Long.toString(l));
      }
      if (v instanceof String s) {
        return parse.apply(s);
      }
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw t.error(key, e.getMessage());
    }
    throw t.error(key, "must be \"max\", an integer or a string such as \"512M\"");
  }
}
