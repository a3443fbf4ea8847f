package io.ql3.worker.runtime.session;

import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.transport.Backoff;
import java.util.concurrent.TimeUnit;

/**
 * Every time the session waits for, on the monotonic ticker: the local lease deadline, when the
 * next heartbeat is due, the backoff before the next request, a server's retry-after, and the point
 * after a clock gap from which a heartbeat must be accepted before pulling again. It decides
 * nothing: {@link SessionCoordinator} and its parts set and read it.
 */
final class SessionTimers {
  static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Backoff retry;
  private final Deadline lease = new Deadline();
  private final Deadline heartbeatAt = new Deadline();
  private final Deadline notBefore = new Deadline();

  /** A server's retry-after (429/503): no session request before it, whatever else happens. */
  private final Deadline retryAfterUntil = new Deadline();

  /** Set by a clock gap: no pull until a heartbeat sent at or after it is accepted. */
  private final Deadline leaseToConfirmFrom = new Deadline();

  SessionTimers(Backoff retry) {
    this.retry = retry;
  }

  /** No backoff and no server's retry-after holds at {@code now}. */
  boolean mayRequest(long now) {
    return !notBefore.pending(now) && !retryAfterUntil.pending(now);
  }

  /** A heartbeat is due at {@code now} (or none was scheduled yet). */
  boolean heartbeatDue(long now) {
    return !heartbeatAt.pending(now);
  }

  void heartbeatAfter(long now, long intervalMs) {
    heartbeatAt.set(now + intervalMs * NANOS_PER_MS);
  }

  /** The lease runs {@code ttlMs} from {@code sentAt}, the send time of the try it answers. */
  void leaseFrom(long sentAt, long ttlMs) {
    lease.set(sentAt + ttlMs * NANOS_PER_MS);
  }

  boolean leasePassed(long now) {
    return lease.reached(now);
  }

  long leaseRemainingNanos(long now) {
    return Math.max(0, lease.remaining(now));
  }

  /** The next request waits one more backoff step from {@code now}. */
  void backOff(long now) {
    notBefore.set(now + retry.nextDelayNanos());
  }

  /** The next backoff step, consumed. */
  long nextBackoffNanos() {
    return retry.nextDelayNanos();
  }

  void notBefore(long at) {
    notBefore.set(at);
  }

  /** A server asked for {@code waitNanos} of quiet (already capped). */
  void serverAskedToWait(long now, long waitNanos) {
    retryAfterUntil.set(now + waitNanos);
  }

  void serverWaitOver() {
    retryAfterUntil.clear();
  }

  /** An accepted heartbeat or transition: the backoff starts over and a server's wait is over. */
  void accepted() {
    retry.reset();
    retryAfterUntil.clear();
  }

  /**
   * A credential file changed: the backoff and the heartbeat wait are dropped (retry-after stays).
   */
  void retryAtOnce() {
    notBefore.clear();
    heartbeatAt.clear();
  }

  /**
   * The ticker missed {@code lostNanos}: the lease is that much shorter, a heartbeat is due now.
   */
  void clockGap(long lostNanos, long now) {
    lease.earlier(lostNanos);
    heartbeatAt.set(now);
    leaseToConfirmFrom.set(now);
  }

  /** After a clock gap, until a heartbeat sent since then is accepted. */
  boolean leaseUnconfirmed() {
    return leaseToConfirmFrom.isSet();
  }

  /**
   * A heartbeat sent at {@code sentAt} was accepted: if sent after the gap, the lease is known
   * again.
   */
  void heartbeatAccepted(long sentAt) {
    if (leaseToConfirmFrom.reached(sentAt)) {
      leaseToConfirmFrom.clear();
    }
  }

  /** A session ended or none is held: a new one starts with a lease of its own. */
  void forgetClockGap() {
    leaseToConfirmFrom.clear();
  }
}
