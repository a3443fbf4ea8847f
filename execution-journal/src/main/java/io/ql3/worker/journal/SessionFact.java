package io.ql3.worker.journal;

/** The last session recorded in the journal. */
public record SessionFact(String sessionId, long generation, SessionStatus status) {}
