package io.ql3.worker.runtime.exec;

/**
 * How an executed run ended, as far as an executor can tell. The contract's fourth outcome,
 * {@code uncertain}, is never produced by an executor: only the runtime, after a crash, can say
 * that it does not know.
 */
public enum ExecutionOutcome {
  SUCCEEDED("succeeded"),
  FAILED("failed"),
  CANCELLED("cancelled");

  private final String wireName;

  ExecutionOutcome(String wireName) {
    this.wireName = wireName;
  }

  /** The contract's spelling. */
  public String wireName() {
    return wireName;
  }
}
