package io.ql3.worker.bench.journal;

import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.journal.RunResult;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The journal's own durable append with T producers ({@code -t 1,4,16,64}): each op is one run
 * state change (offer accepted → run started → result recorded → completion acknowledged, cycling
 * per thread), so state stays bounded and segments roll and compact as in production (default
 * config: 1 MiB segments, compaction after 4).
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 3)
public class JournalAppendBenchmark {
  static final String SESSION = "0190a8c4-1c2d-7abc-8def-0123456789ab";
  private Path dir;
  private Journal journal;
  private final AtomicInteger threadIds = new AtomicInteger();

  @Setup(Level.Trial)
  public void setUp() {
    dir = BenchFiles.tempDir("journal-append");
    journal = Journal.open(JournalConfig.of(dir, "bench-worker"));
    journal.append(new JournalRecord.SessionRegistered(SESSION, 1));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.out.println("\n[journal stats] " + journal.stats());
    journal.close();
    BenchFiles.deleteTree(dir);
  }

  /** One producer's position in its run cycle. */
  @State(Scope.Thread)
  public static class Producer {
    String prefix;
    long run;
    int step;

    @Setup(Level.Trial)
    public void setUp(JournalAppendBenchmark b) {
      prefix = "t" + b.threadIds.incrementAndGet() + "-";
    }

    JournalRecord next() {
      String id = prefix + run;
      JournalRecord r =
          switch (step) {
            case 0 ->
                new JournalRecord.OfferAccepted(
                    id,
                    1,
                    SESSION,
                    1,
                    "process",
                    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                    "idem-" + id,
                    60_000);
            case 1 -> new JournalRecord.RunStarted(id, 1, 12345, 1_700_000_000_000L);
            case 2 ->
                new JournalRecord.ResultRecorded(
                    id, 1, new RunResult(Outcome.SUCCEEDED, null, 42, 0, 12, "hello world\n"));
            default -> new JournalRecord.CompletionAcknowledged(id, 1, Disposition.ACCEPTED);
          };
      if (++step == 4) {
        step = 0;
        run++;
      }
      return r;
    }
  }

  @Benchmark
  public long appendDurable(Producer p) {
    return journal.append(p.next());
  }
}
