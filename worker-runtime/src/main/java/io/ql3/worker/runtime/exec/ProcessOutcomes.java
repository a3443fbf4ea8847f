package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.util.Set;

/**
 * Maps how a process ended to the contract's outcome, failure and exitCode. The one place that
 * decides it.
 *
 * <p>The JVM reports death by signal N as status 128+N (the shells' convention) and cannot tell it
 * from a program that calls {@code exit(128+N)} itself. Statuses 129..192 (signals 1..64) are
 * therefore read as death by signal: exitCode null.
 */
public final class ProcessOutcomes {

  /** Why the executor ended a run itself. */
  enum Termination {
    NONE,
    TIMEOUT,
    CANCEL
  }

  private static final String[] SIGNAL_NAMES = {
    null,
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGSTKFLT",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGPWR",
    "SIGSYS"
  };

  private ProcessOutcomes() {}

  /** A wait status the JVM reports for death by a signal (128 + signal), not an exit code. */
  public static boolean isSignalStatus(int status) {
    return status >= 129 && status <= 192;
  }

  static String signalName(int signal) {
    if (signal > 0 && signal < SIGNAL_NAMES.length) {
      return SIGNAL_NAMES[signal];
    }
    return "signal " + signal;
  }

  /** A run cancelled before its process was started: cancelled, with the cancellation's failure. */
  static ExecutionResult cancelledBeforeStart(Failure why) {
    return ExecutionResult.cancelled(
        Failures.of(why.category(), why.code(), why.message() + " (before the process started)"),
        0);
  }

  /** A run whose process could not be started ({@code cgroup_failed}, {@code spawn_failed}). */
  static ExecutionResult launchFailed(String code, String message) {
    return ExecutionResult.failed(Failures.transientFailure(code, message), 0);
  }

  /** A run whose end hit a bug in the executor: failed, transient, {@code executor_error}. */
  static ExecutionResult executorFailure(RuntimeException e) {
    return ExecutionResult.failed(
        Failures.transientFailure("executor_error", "process executor failure: " + e), 0);
  }

  /**
   * @param status the JVM's exit value of the main process
   * @param termination what the executor did to end it, if anything
   * @param terminationDetail for TIMEOUT/CANCEL: which signals were sent, for the message
   * @param cancelReason for CANCEL: the failure the runtime gave when cancelling
   * @param timeoutMs for TIMEOUT: the timeout, for the message
   */
  static ExecutionResult map(
      int status,
      Termination termination,
      String terminationDetail,
      Failure cancelReason,
      long timeoutMs,
      Set<Integer> permanentExitCodes,
      long durationMs,
      long outputBytes,
      byte[] tail) {
    Integer exitCode = isSignalStatus(status) ? null : Integer.valueOf(status & 0xFF);
    String ended =
        exitCode == null
            ? "terminated by " + signalName(status - 128)
            : "exited with status " + exitCode;
    switch (termination) {
      case CANCEL:
        return ExecutionResult.of(
            Outcome.CANCELLED,
            Failures.of(
                cancelReason.category(),
                cancelReason.code(),
                cancelReason.message() + " (" + terminationDetail + "; process " + ended + ")"),
            exitCode,
            durationMs,
            outputBytes,
            tail);
      case TIMEOUT:
        return ExecutionResult.of(
            Outcome.FAILED,
            Failures.transientFailure(
                "task_timeout",
                "task timed out after "
                    + timeoutMs
                    + " ms ("
                    + terminationDetail
                    + "; process "
                    + ended
                    + ")"),
            exitCode,
            durationMs,
            outputBytes,
            tail);
      case NONE:
      default:
        break;
    }
    if (exitCode == null) {
      return ExecutionResult.of(
          Outcome.FAILED,
          Failures.transientFailure(
              "killed_by_signal",
              "process "
                  + ended
                  + " (the JVM reported status "
                  + status
                  + ", which is also what exit("
                  + status
                  + ") would give)"),
          null,
          durationMs,
          outputBytes,
          tail);
    }
    if (exitCode == 0) {
      return ExecutionResult.of(Outcome.SUCCEEDED, null, 0, durationMs, outputBytes, tail);
    }
    if (permanentExitCodes.contains(exitCode)) {
      return ExecutionResult.of(
          Outcome.FAILED,
          Failures.permanent(
              "exit_nonzero",
              "process exited with status " + exitCode + " (configured as permanent)"),
          exitCode,
          durationMs,
          outputBytes,
          tail);
    }
    return ExecutionResult.of(
        Outcome.FAILED,
        Failures.transientFailure("exit_nonzero", "process exited with status " + exitCode),
        exitCode,
        durationMs,
        outputBytes,
        tail);
  }

  /**
   * A failed run whose cgroup's memory limit killed some of its processes fails permanently, {@code
   * memory_limit}, naming the limit; any other result is returned as it is.
   *
   * @param mapped what {@link #map} decided
   * @param tail the output's tail, as given to {@link #map}
   */
  static ExecutionResult withMemoryLimit(
      ExecutionResult mapped, RunUsage usage, Isolation isolation, byte[] tail) {
    if (usage.hitMemoryLimit() && mapped.outcome() == Outcome.FAILED) {
      mapped =
          ExecutionResult.of(
              Outcome.FAILED,
              Failures.permanent(
                  "memory_limit",
                  "the run's memory limit (memory.max "
                      + isolation.cgroups().map(t -> t.limits().memoryMaxValue()).orElse("?")
                      + " bytes) killed "
                      + usage.memoryLimitKills()
                      + " of its processes; "
                      + mapped.failure().message()),
              mapped.exitCode(),
              mapped.durationMs(),
              mapped.outputBytes(),
              tail);
    }
    return mapped;
  }
}
