package io.ql3.worker.journal;

/** Outcome of a run attempt, as reported in a completion. */
public enum Outcome { SUCCEEDED, FAILED, CANCELLED, UNCERTAIN }
