package io.ql3.worker.journal;

/** A run attempt: the unit the journal tracks and deduplicates. */
public record RunKey(String runId, long attempt) {
  @Override
  public String toString() {
    return runId + "#" + attempt;
  }
}
