package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.SessionId;

/** The session (and its generation) runs are pulled under; offers are bound to both. */
public record SessionLease(SessionId sessionId, long generation) {}
