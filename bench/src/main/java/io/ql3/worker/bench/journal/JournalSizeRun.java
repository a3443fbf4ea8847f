package io.ql3.worker.bench.journal;

import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.JournalStats;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.journal.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounded size: pushes N runs (4 records each) through a journal with the default configuration and
 * samples the directory size every 20 ms. Not JMH: one long run, one number (the maximum). Usage:
 * {@code JournalSizeRun [runs=1000000] [producers=16]}.
 */
public final class JournalSizeRun {
  public static void main(String[] args) throws Exception {
    long runs = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    int producers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    Path dir = BenchFiles.tempDir("journal-size");
    String session = JournalAppendBenchmark.SESSION;
    AtomicLong maxBytes = new AtomicLong();
    AtomicLong samples = new AtomicLong();
    Journal j = Journal.open(JournalConfig.of(dir, "bench-worker"));
    j.append(new JournalRecord.SessionRegistered(session, 1));
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                long b = BenchFiles.directoryBytes(dir);
                maxBytes.accumulateAndGet(b, Math::max);
                samples.incrementAndGet();
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "size-sampler");
    sampler.setDaemon(true);
    sampler.start();
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < producers; t++) {
      int tt = t;
      Thread th =
          new Thread(
              () -> {
                CompletableFuture<Long> last = null;
                for (long i = tt; i < runs; i += producers) {
                  String id = "r" + i;
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
                          id,
                          1,
                          new RunResult(Outcome.SUCCEEDED, null, 42, 0, 12, "hello world\n")));
                  last =
                      j.appendAsync(
                          new JournalRecord.CompletionAcknowledged(id, 1, Disposition.ACCEPTED));
                  if (i % 256 < producers) {
                    last.join(); // keep a bounded amount in flight
                  }
                }
                if (last != null) {
                  last.join();
                }
              },
              "producer-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    sampler.interrupt();
    sampler.join();
    JournalStats stats = j.stats();
    long finalBytes = BenchFiles.directoryBytes(dir);
    System.out.printf(
        "runs=%d producers=%d seconds=%.1f records=%d records/s=%.0f forces=%d records/force=%.1f "
            + "segmentsCreated=%d compactions=%d maxDirBytes=%d (%.2f MiB) finalDirBytes=%d samples=%d%n",
        runs,
        producers,
        secs,
        stats.records(),
        stats.records() / secs,
        stats.forces(),
        (double) stats.records() / stats.forces(),
        stats.segments(),
        stats.compactions(),
        maxBytes.get(),
        maxBytes.get() / 1048576.0,
        finalBytes,
        samples.get());
    j.close();
    BenchFiles.deleteTree(dir);
  }
}
