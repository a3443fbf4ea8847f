package io.ql3.worker.journal;

/**
 * The journal cannot be trusted as it is; nothing was repaired. The agent must not register until
 * an operator deals with it.
 *
 * @param file the file where the problem was found (may be null when not file specific)
 * @param offset byte offset inside {@code file}, or -1
 */
public record RecoveryRequired(Reason reason, String file, long offset, String detail) {

  public enum Reason {
    /** A damaged record (or a hole of zeros) with valid committed records after it. */
    CORRUPT_RECORD,
    /** A segment header that does not validate while committed records follow it. */
    CORRUPT_HEADER,
    /** Sequence numbers do not continue (missing segment, or a reordered frame). */
    SEQUENCE_GAP,
    /** The newest snapshot is damaged and the log it replaced is gone. */
    CORRUPT_SNAPSHOT,
    /** A segment written by an unknown format version. */
    UNKNOWN_FORMAT_VERSION,
    /** The journal belongs to another workerId. */
    FOREIGN_WORKER,
    /** A valid record that breaks the run/session state machine. */
    ILLEGAL_TRANSITION
  }

  @Override
  public String toString() {
    return reason
        + (file == null ? "" : " in " + file + (offset >= 0 ? " at offset " + offset : ""))
        + ": "
        + detail;
  }
}
