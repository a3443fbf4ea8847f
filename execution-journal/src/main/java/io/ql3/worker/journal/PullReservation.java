package io.ql3.worker.journal;

/** Slots reserved by a pull that has not been closed yet. */
public record PullReservation(String pullId, int maxRuns) {}
