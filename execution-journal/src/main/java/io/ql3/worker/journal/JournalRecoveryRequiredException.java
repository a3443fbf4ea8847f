package io.ql3.worker.journal;

/** The journal needs an operator; it accepts no appends. */
public final class JournalRecoveryRequiredException extends JournalException {
  private static final long serialVersionUID = 1L;
  private final transient RecoveryRequired recoveryRequired;

  public JournalRecoveryRequiredException(RecoveryRequired recoveryRequired) {
    super("journal recovery required: " + recoveryRequired);
    this.recoveryRequired = recoveryRequired;
  }

  public RecoveryRequired recoveryRequired() {
    return recoveryRequired;
  }
}
