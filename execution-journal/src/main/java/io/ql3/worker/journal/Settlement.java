package io.ql3.worker.journal;

/** How a run attempt left the journal's live set. */
public enum Settlement implements DiskCode {
  /** The server accepted the completion. */
  ACKNOWLEDGED(0),
  /** The server already had this exact completion. */
  DUPLICATE(1),
  /** The server no longer leases this attempt to us (409 run_not_leased). */
  SUPERSEDED(2),
  /** An operator resolved it explicitly (recorded, never by deleting files). */
  OPERATOR_RESOLVED(3),
  /**
   * The completion was refused in a way no resend can change ({@link Disposition#UNDELIVERABLE}).
   */
  UNDELIVERABLE(4);

  private final byte code;

  Settlement(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }
}
