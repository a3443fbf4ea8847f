package io.ql3.worker.runtime.exec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Configuration of the built-in {@code process} executor. Immutable; start from {@link #defaults()}
 * and change what the configuration file sets.
 *
 * @param permanentExitCodes exit statuses reported as {@code failed}/permanent (every other
 *     non-zero status is transient); each in 1..128 or 193..255, because the JVM reports death by
 *     signal N as status 128+N and those are read as signals (see docs/executors.md)
 * @param maxLogBytes size at which the output log rotates to {@code .1}; disk use per run is at
 *     most twice this
 * @param killGrace time between SIGTERM and SIGKILL to the process group on cancel or timeout
 * @param outputDrainTimeout after the main process exits and its group is killed, how long to wait
 *     for the end of the output before reporting with what was captured (only a process that left
 *     the group and still holds the output open makes this wait)
 * @param path the child's {@code PATH}
 * @param lang the child's {@code LANG}
 * @param passEnvironment names of agent environment variables copied to every child (default none:
 *     the agent's environment may hold secrets)
 * @param setsid the util-linux {@code setsid} binary that makes the child a session and
 *     process-group leader (signals never start a process: see {@link RunProcesses})
 */
public record ProcessExecutorSettings(
    Set<Integer> permanentExitCodes,
    long maxLogBytes,
    Duration killGrace,
    Duration outputDrainTimeout,
    String path,
    String lang,
    Set<String> passEnvironment,
    Path setsid) {

  public static final long DEFAULT_MAX_LOG_BYTES = 8L * 1024 * 1024;
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_OUTPUT_DRAIN_TIMEOUT = Duration.ofSeconds(5);
  public static final String DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";
  public static final String DEFAULT_LANG = "C.UTF-8";

  private static final Pattern ENV_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,127}$");

  public ProcessExecutorSettings {
    Objects.requireNonNull(permanentExitCodes, "permanentExitCodes");
    Objects.requireNonNull(killGrace, "killGrace");
    Objects.requireNonNull(outputDrainTimeout, "outputDrainTimeout");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(lang, "lang");
    Objects.requireNonNull(passEnvironment, "passEnvironment");
    Objects.requireNonNull(setsid, "setsid");
    for (Integer code : permanentExitCodes) {
      if (code == null || code < 1 || code > 255) {
        throw new IllegalArgumentException("permanent exit code must be in 1..255: " + code);
      }
      if (ProcessOutcomes.isSignalStatus(code)) {
        throw new IllegalArgumentException(
            "permanent exit code "
                + code
                + " is in 129..192, which the JVM reports for death by"
                + " signal "
                + (code - 128)
                + "; such statuses are read as signals, not exit codes");
      }
    }
    if (maxLogBytes < 1024) {
      throw new IllegalArgumentException("maxLogBytes must be at least 1024: " + maxLogBytes);
    }
    if (killGrace.isNegative() || outputDrainTimeout.isNegative()) {
      throw new IllegalArgumentException("killGrace and outputDrainTimeout must not be negative");
    }
    if (path.indexOf('\0') >= 0 || lang.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("path and lang must not contain NUL");
    }
    for (String name : passEnvironment) {
      if (name == null || !ENV_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("not an environment variable name: " + name);
      }
    }
    if (!setsid.isAbsolute()) {
      throw new IllegalArgumentException("setsid must be an absolute path");
    }
    permanentExitCodes = Set.copyOf(new TreeSet<>(permanentExitCodes));
    passEnvironment = Set.copyOf(passEnvironment);
  }

  /** The defaults: no permanent exit codes, 8 MiB log, 10 s grace, clean environment. */
  public static ProcessExecutorSettings defaults() {
    return new ProcessExecutorSettings(
        Set.of(),
        DEFAULT_MAX_LOG_BYTES,
        DEFAULT_KILL_GRACE,
        DEFAULT_OUTPUT_DRAIN_TIMEOUT,
        DEFAULT_PATH,
        DEFAULT_LANG,
        Set.of(),
        Path.of("/usr/bin/setsid"));
  }

  public ProcessExecutorSettings withPermanentExitCodes(Set<Integer> codes) {
    return new ProcessExecutorSettings(
        codes, maxLogBytes, killGrace, outputDrainTimeout, path, lang, passEnvironment, setsid);
  }

  public ProcessExecutorSettings withMaxLogBytes(long bytes) {
    return new ProcessExecutorSettings(
        permanentExitCodes,
        bytes,
        killGrace,
        outputDrainTimeout,
        path,
        lang,
        passEnvironment,
        setsid);
  }

  public ProcessExecutorSettings withKillGrace(Duration grace) {
    return new ProcessExecutorSettings(
        permanentExitCodes,
        maxLogBytes,
        grace,
        outputDrainTimeout,
        path,
        lang,
        passEnvironment,
        setsid);
  }

  public ProcessExecutorSettings withOutputDrainTimeout(Duration timeout) {
    return new ProcessExecutorSettings(
        permanentExitCodes, maxLogBytes, killGrace, timeout, path, lang, passEnvironment, setsid);
  }

  public ProcessExecutorSettings withPath(String newPath) {
    return new ProcessExecutorSettings(
        permanentExitCodes,
        maxLogBytes,
        killGrace,
        outputDrainTimeout,
        newPath,
        lang,
        passEnvironment,
        setsid);
  }

  public ProcessExecutorSettings withPassEnvironment(Set<String> names) {
    return new ProcessExecutorSettings(
        permanentExitCodes, maxLogBytes, killGrace, outputDrainTimeout, path, lang, names, setsid);
  }
}
