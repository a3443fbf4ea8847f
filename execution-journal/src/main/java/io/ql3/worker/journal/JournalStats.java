package io.ql3.worker.journal;

/**
 * Counters of an open journal since it was opened (for metrics and benchmarks).
 *
 * @param records records made durable
 * @param forces data forces of group commits (one per batch)
 * @param segments log segments created
 * @param compactions snapshots written
 */
public record JournalStats(long records, long forces, long segments, long compactions) {}
