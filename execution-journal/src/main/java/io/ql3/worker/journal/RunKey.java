package io.ql3.worker.journal;

/** A run attempt: the unit the journal tracks and deduplicates. */
public record RunKey(String runId, long attempt) {
  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof RunKey other
        && attempt == other.attempt
        && java.util.Objects.equals(runId, other.runId);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Objects.hashCode(runId) + Long.hashCode(attempt);
  }

  @Override
  public String toString() {
    return runId + "#" + attempt;
  }
}
