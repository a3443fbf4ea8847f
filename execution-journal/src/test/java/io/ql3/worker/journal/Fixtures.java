package io.ql3.worker.journal;

import io.ql3.worker.journal.JournalRecord.CompletionAcknowledged;
import io.ql3.worker.journal.JournalRecord.OfferAccepted;
import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import io.ql3.worker.journal.JournalRecord.RunStarted;
import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import java.nio.file.Path;

/** Record builders shared by the tests. */
final class Fixtures {
  static final String WORKER = "worker-1";
  static final String SESSION = "0190a8c4-1c2d-7abc-8def-0123456789ab";
  static final String SESSION2 = "0190a8c4-1c2d-7abc-8def-0123456789ac";

  private Fixtures() {}

  static JournalConfig config(Path dir) {
    return JournalConfig.of(dir, WORKER).withSegmentBytes(256 * 1024);
  }

  static SessionRegistered session() {
    return new SessionRegistered(SESSION, 1);
  }

  static OfferAccepted offer(String runId) {
    return new OfferAccepted(
        runId, 1, SESSION, 1, "process", "sha256:" + "ab".repeat(32), "idem-" + runId, 60_000);
  }

  static RunStarted started(String runId) {
    return new RunStarted(runId, 1, 4242, 1_700_000_000_000L);
  }

  static ResultRecorded succeeded(String runId) {
    return new ResultRecorded(runId, 1, new RunResult(Outcome.SUCCEEDED, null, 12, 0, 5, "hello"));
  }

  static ResultRecorded failed(String runId) {
    return new ResultRecorded(
        runId,
        1,
        new RunResult(
            Outcome.FAILED,
            new Failure(FailureCategory.TRANSIENT, "exit_nonzero", "exit 3 \u00e9\u6f22"),
            40,
            3,
            100,
            "tail\n"));
  }

  static CompletionAcknowledged acked(String runId) {
    return new CompletionAcknowledged(runId, 1, Disposition.ACCEPTED);
  }

  /** Many runs through their whole life, pipelined (one producer, FIFO, group commit). */
  static void fullRunsAsync(Journal j, String prefix, int count) {
    java.util.concurrent.CompletableFuture<Long> last = null;
    for (int i = 0; i < count; i++) {
      String id = prefix + i;
      j.appendAsync(offer(id));
      j.appendAsync(started(id));
      j.appendAsync(succeeded(id));
      last = j.appendAsync(acked(id));
    }
    if (last != null) {
      last.join();
    }
  }

  /** One run through its whole life. */
  static void fullRun(Journal j, String runId) {
    j.append(offer(runId));
    j.append(started(runId));
    j.append(succeeded(runId));
    j.append(acked(runId));
  }
}
