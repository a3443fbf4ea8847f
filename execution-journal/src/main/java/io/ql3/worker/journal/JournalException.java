package io.ql3.worker.journal;

/** Base of every error the journal reports. */
public class JournalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JournalException(String message) {
    super(message);
  }

  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
