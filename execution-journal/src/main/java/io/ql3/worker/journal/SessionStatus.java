package io.ql3.worker.journal;

/** Status of the worker's session as recorded locally. */
public enum SessionStatus { ACTIVE, DRAINING, OFFLINE }
