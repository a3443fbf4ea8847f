package io.ql3.worker.bench.journal;

import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalInspector;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.journal.RunResult;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Recovery time of a journal of {@code records} records (no snapshot: compaction disabled, so all
 * of them are scanned, CRC-checked, decoded and folded). {@code open} is the full owned open (lock,
 * recovery, writer start) plus facts and close; {@code verify} is the read-only scan.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class JournalRecoveryBenchmark {
  @Param("100000")
  public int records;

  private Path dir;
  private JournalConfig config;

  @Setup(Level.Trial)
  public void setUp() {
    dir = BenchFiles.tempDir("journal-recovery");
    config = JournalConfig.of(dir, "bench-worker").withCompactAfterSegments(1_000_000);
    try (Journal j = Journal.open(config)) {
      String session = JournalAppendBenchmark.SESSION;
      j.append(new JournalRecord.SessionRegistered(session, 1));
      CompletableFuture<Long> last = null;
      for (int i = 0; (i + 1) * 4 < records; i++) {
        String id = "run-" + i;
        j.appendAsync(
            new JournalRecord.OfferAccepted(
                id,
                1,
                session,
                1,
                "process",
                "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "idem-" + id,
                60_000));
        j.appendAsync(new JournalRecord.RunStarted(id, 1, 12345, 1_700_000_000_000L));
        j.appendAsync(
            new JournalRecord.ResultRecorded(
                id, 1, new RunResult(Outcome.SUCCEEDED, null, 42, 0, 12, "hello world\n")));
        last = j.appendAsync(new JournalRecord.CompletionAcknowledged(id, 1, Disposition.ACCEPTED));
      }
      last.join();
      System.out.println(
          "\n[recovery setup] lastSeq="
              + j.facts().lastSeq()
              + " dirBytes="
              + BenchFiles.directoryBytes(dir));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    BenchFiles.deleteTree(dir);
  }

  @Benchmark
  public JournalFacts open() {
    try (Journal j = Journal.open(config)) {
      return j.facts();
    }
  }

  @Benchmark
  public JournalInspector.Verification verify() {
    return JournalInspector.verify(dir, "bench-worker");
  }
}
