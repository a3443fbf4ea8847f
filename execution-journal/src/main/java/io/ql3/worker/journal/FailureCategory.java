package io.ql3.worker.journal;

/** Whether a failed run may be retried by the server. */
public enum FailureCategory { TRANSIENT, PERMANENT }
