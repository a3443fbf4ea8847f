package io.ql3.worker.journal;

/**
 * Whether a failed run may be retried by the server.
 *
 * <p>The journal's own copy of the contract's {@code FailureCategory}: the journal does not depend
 * on the contract (module graph), and its on-disk codes must never follow a wire change.
 * Worker-runtime's {@code JournalMapping} is the only place the two meet; its {@code
 * JournalContractParityTest} fails when they differ.
 */
public enum FailureCategory implements DiskCode {
  TRANSIENT(0),
  PERMANENT(1);

  private final byte code;

  FailureCategory(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }
}
