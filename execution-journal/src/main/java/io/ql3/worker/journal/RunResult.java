package io.ql3.worker.journal;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The bounded result of a run attempt, recorded before its completion is sent.
 *
 * <p>The journal's own copy of the contract's {@code RunResult} plus outcome and failure (the
 * journal does not depend on the contract); worker-runtime's {@code JournalMapping} converts it.
 *
 * @param failure null exactly when the outcome is {@link Outcome#SUCCEEDED}
 * @param exitCode null when there is no exit status (signal, never started), else 0..255
 */
public record RunResult(
    Outcome outcome,
    Failure failure,
    long durationMs,
    Integer exitCode,
    long outputBytes,
    String outputTail) {
  /**
   * Raw UTF-8 bound of the tail: the same number as the contract's {@code
   * RunResult.MAX_OUTPUT_TAIL_BYTES} (pinned by worker-runtime's {@code
   * JournalContractParityTest}), which bounds the escaped form and so is the stricter of the two.
   */
  public static final int MAX_TAIL_BYTES = 16384;

  public RunResult {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(outputTail, "outputTail");
    if ((failure == null) != (outcome == Outcome.SUCCEEDED)) {
      throw new IllegalArgumentException(
          "failure must be null exactly when the outcome is SUCCEEDED");
    }
    if (durationMs < 0 || outputBytes < 0) {
      throw new IllegalArgumentException("durationMs and outputBytes must be >= 0");
    }
    if (exitCode != null && (exitCode < 0 || exitCode > 255)) {
      throw new IllegalArgumentException("exitCode must be null or 0..255: " + exitCode);
    }
    if (outputTail.getBytes(StandardCharsets.UTF_8).length > MAX_TAIL_BYTES) {
      throw new IllegalArgumentException("outputTail over " + MAX_TAIL_BYTES + " bytes");
    }
  }

  /** The result the journal records for a run that started and has no result after a crash. */
  public static RunResult uncertainAfterCrash() {
    return new RunResult(
        Outcome.UNCERTAIN,
        new Failure(
            FailureCategory.PERMANENT,
            "outcome_uncertain",
            "the worker stopped after the run started and before its result was recorded"),
        0,
        null,
        0,
        "");
  }
}
