package io.ql3.worker.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Read-only inspection for the CLI: verifies a journal directory and lists its facts without taking
 * the lock and without writing anything (a journal in use may show its in-flight tail as torn
 * bytes). Changes are made only through an owned {@link Journal}: for example an {@link
 * JournalRecord.OperatorResolved} record to settle an uncertain run on purpose.
 */
public final class JournalInspector {
  private JournalInspector() {}

  /**
   * What a verification found.
   *
   * @param facts derived state (up to the problem, if any)
   * @param recoveryRequired present when an open would refuse to repair
   * @param tornTailBytes bytes an open would zero as a torn tail
   * @param leftoverFiles files an open would remove (temp files, compacted-away files)
   * @param wouldDeclareUncertain runs an open would record as UNCERTAIN
   */
  public record Verification(
      JournalFacts facts,
      Optional<RecoveryRequired> recoveryRequired,
      long snapshotSeq,
      long recordsReplayed,
      long tornTailBytes,
      List<String> leftoverFiles,
      List<RunFact> wouldDeclareUncertain) {
    public boolean clean() {
      return recoveryRequired.isEmpty() && tornTailBytes == 0 && leftoverFiles.isEmpty();
    }
  }

  public static Verification verify(Path directory, String workerId) {
    return verify(directory, workerId, JournalConfig.DEFAULT_COMPLETION_WINDOW);
  }

  public static Verification verify(Path directory, String workerId, int completionWindow) {
    if (!Files.isDirectory(directory)) {
      throw new UncheckedIOException(new java.nio.file.NoSuchFileException(directory.toString()));
    }
    try {
      Recovery.Plan plan =
          new Recovery(new FileStorage(directory), workerId, completionWindow).run();
      List<RunFact> uncertain = new ArrayList<>();
      if (plan.problem == null) {
        for (JournalState.Run r : plan.state.startedWithoutResult()) {
          uncertain.add(r.fact());
        }
      }
      long torn =
          plan.problem == null && plan.activeName != null
              ? plan.activeDirtyEnd - plan.activeEnd
              : 0;
      return new Verification(
          plan.state.facts(plan.problem),
          Optional.ofNullable(plan.problem),
          plan.snapshotSeq,
          plan.replayed,
          torn,
          plan.problem == null ? plan.toDelete : List.of(),
          uncertain);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read journal " + directory, e);
    }
  }
}
