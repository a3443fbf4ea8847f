package io.ql3.worker.controlplane.state;

/** A run attempt offered to (worker, session, generation). */
record Lease(String workerId, String sessionId, long generation, long attempt) {
  boolean matches(String worker, String session, long gen, long att) {
    return workerId.equals(worker)
        && sessionId.equals(session)
        && generation == gen
        && attempt == att;
  }
}
