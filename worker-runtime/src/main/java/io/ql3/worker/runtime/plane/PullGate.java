package io.ql3.worker.runtime.plane;

import io.ql3.worker.runtime.session.SessionLease;
import java.util.Optional;

/**
 * The session as the execution plane sees it, read at the very moment it matters: when a pull is
 * about to be sent and when a pull answer is harvested (section 7 rule 4, "stop pulling at once":
 * an answer applied earlier in the same step may have fenced or suspended the session).
 */
public interface PullGate {
  /** The session to pull under when pulling is allowed now, else empty. */
  Optional<SessionLease> permit(long now);

  /**
   * The session runs are pulled under is over (fenced, expired, offline): a pull answer that still
   * arrives is not executed (the server reclaims those runs), and a pull waiting for a resend is
   * given up; a merely suspended session keeps its pull pending.
   */
  boolean sessionEnded();

  /** A gate that does not change during the step (tests that drive the plane by hand). */
  static PullGate fixed(Optional<SessionLease> permit, boolean sessionEnded) {
    return new PullGate() {
      @Override
      public Optional<SessionLease> permit(long now) {
        return permit;
      }

      @Override
      public boolean sessionEnded() {
        return sessionEnded;
      }
    };
  }
}
