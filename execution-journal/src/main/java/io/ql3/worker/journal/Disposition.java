package io.ql3.worker.journal;

/**
 * How the server answered a completion (on-disk codes pinned by a test). The contract's {@code
 * Disposition} plus {@link #UNDELIVERABLE}, which is local: the server never says it.
 *
 * <p>Separate from the contract's type: the journal does not depend on the contract (module graph).
 * Worker-runtime's {@code JournalMapping} is the only place the two meet; its {@code
 * JournalContractParityTest} fails when the shared constants differ.
 */
public enum Disposition implements DiskCode {
  ACCEPTED(0),
  DUPLICATE(1),
  /**
   * Refused in a way no resend can change (400, 413, 404, 405 or a 409 session code, contract
   * section 6 clarifications): settled locally so drain and the next register are not blocked; the
   * server reclaims the run by its lease.
   */
  UNDELIVERABLE(2);

  private final byte code;

  Disposition(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }
}
