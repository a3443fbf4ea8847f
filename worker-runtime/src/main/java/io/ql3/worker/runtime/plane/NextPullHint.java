package io.ql3.worker.runtime.plane;

import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.runtime.session.SessionLease;

/**
 * The server's "next pull after" hint of an empty pull answer (contract section 5: the earliest
 * time it wants another pull), and the one thing that overrides it, a heartbeat's {@code
 * workAvailable}. A freed slot does not: the server said when its queue has work for this worker.
 *
 * <p>A hint holds for the session whose pull it answered only; a wake that came after that pull was
 * reserved makes its answer's hint stale (the queue changed since), so it is not set. Confined to
 * the cadence thread.
 */
final class NextPullHint {
  private final Deadline at = new Deadline();
  private SessionLease lease;
  private long wakes;

  /** The wakes so far: a pull records this when it is reserved. */
  long wakes() {
    return wakes;
  }

  /** A heartbeat said work is queued: whatever hint there was is over. */
  void woken() {
    wakes++;
    clear();
  }

  /**
   * Sets the hint from the empty answer to a pull of {@code lease} reserved after {@code
   * wakesAtReserve} wakes.
   *
   * @return false when a wake came since that pull was reserved: no hint, pull again
   */
  boolean set(long until, SessionLease lease, long wakesAtReserve) {
    if (wakesAtReserve != wakes) {
      return false;
    }
    at.set(until);
    this.lease = lease;
    return true;
  }

  void clear() {
    at.clear();
    lease = null;
  }

  /** True while a hint of {@code permit}'s session is still ahead of {@code now}: no pull yet. */
  boolean holds(SessionLease permit, long now) {
    return at.pending(now) && permit.equals(lease);
  }

  /** True when a hint is set and {@code now} reached it: itself a reason to pull. */
  boolean reached(long now) {
    return at.reached(now);
  }
}
