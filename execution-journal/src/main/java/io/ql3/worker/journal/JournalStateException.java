package io.ql3.worker.journal;

/** The record is not allowed in the journal's current state; it was not written. */
public final class JournalStateException extends JournalException {
  private static final long serialVersionUID = 1L;

  public JournalStateException(String message) {
    super(message);
  }
}
