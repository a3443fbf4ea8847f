package io.ql3.worker.journal;

/**
 * Outcome of a run attempt, as reported in a completion.
 *
 * <p>The journal's own copy of the contract's {@code Outcome}: the journal does not depend on the
 * contract (module graph), and its on-disk codes must never follow a wire change. Worker-runtime's
 * {@code JournalMapping} is the only place the two meet; its {@code JournalContractParityTest}
 * fails when they differ.
 */
public enum Outcome implements DiskCode {
  SUCCEEDED(0),
  FAILED(1),
  CANCELLED(2),
  UNCERTAIN(3);

  private final byte code;

  Outcome(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }
}
