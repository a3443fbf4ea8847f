package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentConfig.Execution;
import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import io.ql3.worker.runtime.config.AgentProfile.ProfileDefaults;
import io.ql3.worker.runtime.exec.ProcessOutcomes;
import io.ql3.worker.runtime.isolation.RunLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the {@code [execution]} table: the work directory, the slot budget and pull page (within
 * the profile's bounds), the spec size limit, the executors, the permanent exit codes, the drain
 * and long-poll times, the output log size; its isolation keys are read by {@link IsolationReader}.
 *
 * <p>Errors ({@link ConfigException}): {@code execution.work-dir} missing or empty; an integer out
 * of its bounds (naming the profile when the profile sets them); {@code executors} empty, with a
 * name that is not a valid executor name or listed twice; a permanent exit code that is not an exit
 * code or is a signal status; a value of the wrong type.
 */
final class ExecutionReader {
  private static final Pattern EXECUTOR_NAME = Pattern.compile("^[a-z][a-z0-9-]{0,31}$");

  private ExecutionReader() {}

  /** The {@code [execution]} table, paths resolved against {@code base}; the caller finishes it. */
  static Execution execution(ConfigTable t, Path base, AgentProfile profile, ProfileDefaults d)
      throws ConfigException {
    Path workDir = t.requiredPath("work-dir", base);
    int slots =
        (int)
            t.optionalLong(
                "max-concurrent-runs", d.maxConcurrentRuns(), d.maxConcurrentRunsBounds(), profile);
    int page = (int) t.optionalLong("pull-page", d.pullPage(), d.pullPageBounds(), profile);
    int maxSpec = (int) t.optionalLong("max-spec-bytes", 65_536, new Bounds(1, 65_536));
    List<String> executors = t.optionalStringList("executors", List.of("process"));
    if (executors.isEmpty()) {
      throw t.error("executors", "must name at least one executor");
    }
    Set<String> seen = new HashSet<>();
    for (String e : executors) {
      if (!EXECUTOR_NAME.matcher(e).matches()) {
        throw t.error(
            "executors",
            "'" + e + "' is not a valid executor name (" + EXECUTOR_NAME.pattern() + ")");
      }
      if (!seen.add(e)) {
        throw t.error("executors", "'" + e + "' is listed twice");
      }
    }
    Set<Integer> permanent = new HashSet<>();
    for (long code : t.optionalLongList("permanent-exit-codes")) {
      if (code < 1 || code > 255) {
        throw t.error("permanent-exit-codes", "exit codes are 1..255 (got " + code + ")");
      }
      if (ProcessOutcomes.isSignalStatus((int) code)) {
        throw t.error(
            "permanent-exit-codes",
            code
                + " is in 129..192, the status of a process killed by signal "
                + (code - 128)
                + ": it is read as that signal, never as an exit code");
      }
      permanent.add((int) code);
    }
    Duration drain =
        Duration.ofMillis(
            t.optionalLong(
                "drain-timeout-ms",
                d.drainTimeout().toMillis(),
                new Bounds(0, 7L * 24 * 3_600_000)));
    Duration longPoll =
        Duration.ofMillis(
            t.optionalLong("long-poll-ms", d.longPoll().toMillis(), new Bounds(0, 60_000)));
    long logBytes =
        t.optionalLong(
            "output-log-bytes", 8 * RunLimits.MIB, new Bounds(64 * 1024, 1024 * RunLimits.MIB));
    return new Execution(
        workDir,
        slots,
        page,
        maxSpec,
        executors,
        permanent,
        drain,
        longPoll,
        logBytes,
        IsolationReader.isolation(t, profile, slots));
  }
}
