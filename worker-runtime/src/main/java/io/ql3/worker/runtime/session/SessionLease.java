package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.SessionId;

/** The session (and its generation) runs are pulled under; offers are bound to both. */
public record SessionLease(SessionId sessionId, long generation) {
  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof SessionLease other
        && generation == other.generation
        && java.util.Objects.equals(sessionId, other.sessionId);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Objects.hashCode(sessionId) + Long.hashCode(generation);
  }
}
