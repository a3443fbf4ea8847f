package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.NoopSpec;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.time.Duration;

/** What the plane tests driven by a {@link PlaneAnswersTest.ScriptedIngress} share. */
final class ScriptedPlanes {
  private ScriptedPlanes() {}

  /** Runs under {@code dir/runs}, 4 kept logs, retries from 1 s to 60 s, pull page 4. */
  static PlaneSettings settings(Path dir) {
    return new PlaneSettings(
        dir.resolve("runs"),
        4,
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        4);
  }

  /**
   * A noop run of {@code lease}'s session whose result was recorded before this start: its
   * completion is delivered first.
   */
  static void seedPendingCompletion(Journal journal, SessionLease lease, String run) {
    journal.append(
        new JournalRecord.OfferAccepted(
            run,
            1,
            lease.sessionId().value(),
            lease.generation(),
            "noop",
            NoopSpec.INSTANCE.digest(),
            "k-" + run,
            60_000));
    journal.append(new JournalRecord.RunStarted(run, 1, -1, -1));
    journal.append(
        new JournalRecord.ResultRecorded(
            run, 1, JournalMapping.toJournal(Outcome.SUCCEEDED, null, RunResult.NOT_RUN)));
  }
}
