package io.ql3.worker.capacity;

/**
 * A capacity decision: the slots to publish and why they are what they are.
 *
 * @param availableSlots 0..maxConcurrentRuns
 * @param maxConcurrentRuns the configured maximum
 * @param limitedBy the rule that decided the number
 */
public record Capacity(int availableSlots, int maxConcurrentRuns, Limit limitedBy) {

  /** Which rule decided. */
  public enum Limit {
    /** Slots = max − held runs − reserved pull slots (possibly all of max). */
    HELD_AND_RESERVED,
    /** The lifecycle phase allows no new work. */
    LIFECYCLE,
    /** The journal needs an operator. */
    JOURNAL_RECOVERY_REQUIRED,
    /** The journal failed (I/O) or is closed. */
    JOURNAL_UNUSABLE,
    /** The journal has no active session matching an ACTIVE lifecycle. */
    SESSION_NOT_ACTIVE,
    /** Less free space than the floor: work could not be durably recorded. */
    DISK_SPACE
  }
}
