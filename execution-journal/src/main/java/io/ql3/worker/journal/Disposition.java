package io.ql3.worker.journal;

/** The server's answer to a completion. */
public enum Disposition { ACCEPTED, DUPLICATE }
