package io.ql3.worker.journal;

/**
 * Status of the worker's session as recorded locally.
 *
 * <p>The journal's own copy of the contract's {@code SessionStatus}: the journal does not depend on
 * the contract (module graph), and its on-disk codes must never follow a wire change.
 * Worker-runtime's {@code JournalMapping} is the only place the two meet; its {@code
 * JournalContractParityTest} fails when they differ.
 */
public enum SessionStatus implements DiskCode {
  ACTIVE(0),
  DRAINING(1),
  OFFLINE(2);

  private final byte code;

  SessionStatus(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }
}
