package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.OutputTail;
import io.ql3.worker.contract.RunResult;
import java.util.Objects;

/**
 * What an executor reports when a run ends: exactly the parts of the contract's {@code complete}
 * request an executor can know, in the contract's own types, so the runtime journals and sends them
 * unchanged.
 *
 * @param outcome {@code SUCCEEDED}, {@code FAILED} or {@code CANCELLED}; never {@code UNCERTAIN}
 *     (only the runtime, after a crash, can not know)
 * @param failure null exactly when the outcome is succeeded
 * @param run duration, exit code (null: killed by a signal, never started, not a process), total
 *     output bytes and the output tail under the contract's size rule
 */
public record ExecutionResult(Outcome outcome, Failure failure, RunResult run) {

  public ExecutionResult {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(run, "run");
    if (outcome == Outcome.UNCERTAIN) {
      throw new IllegalArgumentException("an executor never reports uncertain");
    }
    if ((outcome == Outcome.SUCCEEDED) != (failure == null)) {
      throw new IllegalArgumentException(
          "failure must be null exactly when the outcome is succeeded");
    }
  }

  /**
   * A result from raw output: {@code tail} holds the whole output or at least its last 16387 bytes
   * (longer is fine, only the end is used), turned into the contract's {@code outputTail} by {@link
   * OutputTail}. From a shorter cut, a UTF-8 sequence split at its front would show as U+FFFD.
   */
  public static ExecutionResult of(
      Outcome outcome,
      Failure failure,
      Integer exitCode,
      long durationMs,
      long outputBytes,
      byte[] tail) {
    String text = tail == null || tail.length == 0 ? "" : OutputTail.of(tail);
    return new ExecutionResult(
        outcome, failure, new RunResult(durationMs, exitCode, outputBytes, text));
  }

  /** Succeeded, with no output and no exit code (for executors that run no process). */
  public static ExecutionResult succeeded(long durationMs) {
    return new ExecutionResult(Outcome.SUCCEEDED, null, new RunResult(durationMs, null, 0, ""));
  }

  /** Failed, with no output and no exit code. */
  public static ExecutionResult failed(Failure failure, long durationMs) {
    return new ExecutionResult(Outcome.FAILED, failure, new RunResult(durationMs, null, 0, ""));
  }

  /** Cancelled, with no output and no exit code. */
  public static ExecutionResult cancelled(Failure failure, long durationMs) {
    return new ExecutionResult(Outcome.CANCELLED, failure, new RunResult(durationMs, null, 0, ""));
  }

  /** Shorthand for {@code run().exitCode()}. */
  public Integer exitCode() {
    return run.exitCode();
  }

  /** Shorthand for {@code run().durationMs()}. */
  public long durationMs() {
    return run.durationMs();
  }

  /** Shorthand for {@code run().outputBytes()}. */
  public long outputBytes() {
    return run.outputBytes();
  }

  /** Shorthand for {@code run().outputTail()}. */
  public String outputTail() {
    return run.outputTail();
  }
}
