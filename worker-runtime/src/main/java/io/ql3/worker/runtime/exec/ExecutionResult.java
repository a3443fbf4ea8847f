package io.ql3.worker.runtime.exec;

import java.util.Arrays;
import java.util.Objects;

/**
 * What an executor reports when a run ends: the data of the contract's {@code complete} request
 * that an executor can know. Immutable.
 *
 * <p>{@code outputTail} holds the last raw bytes of the output (at most {@link #TAIL_WINDOW}; a
 * longer array is cut to its end). They become the contract's {@code outputTail} string through
 * {@link #outputTailText()}, the one place that applies the contract's size rule.
 *
 * @param outcome succeeded, failed or cancelled
 * @param failure null exactly when {@code outcome} is {@link ExecutionOutcome#SUCCEEDED}
 * @param exitCode null (no exit status: killed by a signal, never started, not a process) or 0..255
 * @param durationMs from launch to the end of the run, in milliseconds
 * @param outputBytes total bytes of output the run produced (stdout and stderr together)
 * @param outputTail the last bytes of that output, raw (may end or begin inside a UTF-8 sequence)
 */
public record ExecutionResult(
    ExecutionOutcome outcome,
    ExecutionFailure failure,
    Integer exitCode,
    long durationMs,
    long outputBytes,
    byte[] outputTail) {

  /**
   * Raw tail bytes kept: the contract's 16384 bytes of escaped text can never need more raw
   * bytes (escaping never shrinks), plus 3 so a cut UTF-8 sequence at the front can be skipped.
   */
  public static final int TAIL_WINDOW = 16384 + 3;

  /** The contract's largest integer, 2^53-1. */
  static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private static final byte[] EMPTY = new byte[0];

  public ExecutionResult {
    Objects.requireNonNull(outcome, "outcome");
    if ((outcome == ExecutionOutcome.SUCCEEDED) != (failure == null)) {
      throw new IllegalArgumentException("failure must be null exactly when the outcome is succeeded");
    }
    if (exitCode != null && (exitCode < 0 || exitCode > 255)) {
      throw new IllegalArgumentException("exitCode must be null or 0..255: " + exitCode);
    }
    if (durationMs < 0 || durationMs > MAX_SAFE_INTEGER) {
      throw new IllegalArgumentException("durationMs out of range: " + durationMs);
    }
    byte[] tail = outputTail == null ? EMPTY : outputTail;
    if (outputBytes < tail.length || outputBytes > MAX_SAFE_INTEGER) {
      throw new IllegalArgumentException(
          "outputBytes (" + outputBytes + ") must be at least the tail length (" + tail.length + ")");
    }
    int keep = Math.min(tail.length, TAIL_WINDOW);
    outputTail = Arrays.copyOfRange(tail, tail.length - keep, tail.length);
  }

  /** A successful run. */
  public static ExecutionResult succeeded(
      Integer exitCode, long durationMs, long outputBytes, byte[] outputTail) {
    return new ExecutionResult(
        ExecutionOutcome.SUCCEEDED, null, exitCode, durationMs, outputBytes, outputTail);
  }

  /** A failed run. */
  public static ExecutionResult failed(
      ExecutionFailure failure,
      Integer exitCode,
      long durationMs,
      long outputBytes,
      byte[] outputTail) {
    return new ExecutionResult(
        ExecutionOutcome.FAILED, failure, exitCode, durationMs, outputBytes, outputTail);
  }

  /** A cancelled run; {@code failure} says why (the runtime chooses it when it cancels). */
  public static ExecutionResult cancelled(
      ExecutionFailure failure,
      Integer exitCode,
      long durationMs,
      long outputBytes,
      byte[] outputTail) {
    return new ExecutionResult(
        ExecutionOutcome.CANCELLED, failure, exitCode, durationMs, outputBytes, outputTail);
  }

  /** The last raw bytes of the output (a copy). */
  @Override
  public byte[] outputTail() {
    return outputTail.clone();
  }

  /**
   * The contract's {@code outputTail}: the tail decoded as UTF-8 (invalid sequences replaced by
   * U+FFFD), leading characters dropped until its canonical escaped JSON form is at most 16384
   * bytes. When the raw tail is not the whole output, a UTF-8 sequence cut at its front is
   * skipped rather than shown as a replacement character that the output never held.
   */
  public String outputTailText() {
    return OutputTailText.fromBytes(outputTail, outputBytes > outputTail.length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExecutionResult r
        && outcome == r.outcome
        && Objects.equals(failure, r.failure)
        && Objects.equals(exitCode, r.exitCode)
        && durationMs == r.durationMs
        && outputBytes == r.outputBytes
        && Arrays.equals(outputTail, r.outputTail);
  }

  @Override
  public int hashCode() {
    return Objects.hash(outcome, failure, exitCode, durationMs, outputBytes, Arrays.hashCode(outputTail));
  }

  @Override
  public String toString() {
    return "ExecutionResult[outcome=" + outcome + ", failure=" + failure + ", exitCode=" + exitCode
        + ", durationMs=" + durationMs + ", outputBytes=" + outputBytes + ", tailBytes="
        + outputTail.length + "]";
  }
}
