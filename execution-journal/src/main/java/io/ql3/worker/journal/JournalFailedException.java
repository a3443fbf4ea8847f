package io.ql3.worker.journal;

/**
 * A write or force failed. The journal is unusable from then on: nothing is retried (a failed fsync
 * may have dropped dirty pages, so a retry could falsely report durability).
 */
public final class JournalFailedException extends JournalException {
  private static final long serialVersionUID = 1L;

  public JournalFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
