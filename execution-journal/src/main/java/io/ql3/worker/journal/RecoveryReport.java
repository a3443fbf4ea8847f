package io.ql3.worker.journal;

import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * What one open did to get the journal usable.
 *
 * @param recordsReplayed log records replayed after the snapshot
 * @param snapshotSeq sequence covered by the snapshot used (0 when none)
 * @param truncatedBytes bytes of torn tail discarded (zeroed)
 * @param removedFiles leftover files removed (temp files, torn segments, compacted-away files)
 * @param declaredUncertain runs that were started with no result: recorded as UNCERTAIN by this
 *     open. A later open never reports them again.
 */
public record RecoveryReport(
    long recordsReplayed,
    long snapshotSeq,
    long truncatedBytes,
    List<String> removedFiles,
    List<RunFact> declaredUncertain,
    Optional<RecoveryRequired> recoveryRequired) {
  public RecoveryReport {
    removedFiles = List.copyOf(removedFiles);
    declaredUncertain = List.copyOf(declaredUncertain);
  }

  /**
   * One line for the agent's log: the counts, the files, the uncertain runs by key and the problem.
   * By hand, not generated: docs/perf/code-rules.md.
   */
  @Override
  public String toString() {
    StringJoiner uncertain = new StringJoiner(", ", "[", "]");
    for (RunFact f : declaredUncertain) {
      uncertain.add(f.key().toString());
    }
    return "replayed="
        + recordsReplayed
        + " snapshot_seq="
        + snapshotSeq
        + " truncated_bytes="
        + truncatedBytes
        + " removed_files="
        + removedFiles
        + " uncertain="
        + uncertain
        + " recovery_required="
        + (recoveryRequired.isPresent() ? recoveryRequired.get() : "none");
  }
}
