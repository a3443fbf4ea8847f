package io.ql3.worker.journal;

/** The journal was closed. */
public final class JournalClosedException extends JournalException {
  private static final long serialVersionUID = 1L;

  public JournalClosedException(String message) {
    super(message);
  }
}
