package io.ql3.worker.bench.journal;

import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.journal.RunResult;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Recovery time of a journal of N records (default 100,000; compaction off so every record is
 * scanned), measured per open both as wall time and as CPU time of the opening thread: on a shared,
 * loaded machine the CPU time shows the work itself, the wall time what a restart costs under that
 * load. The first open is reported separately (cold JIT, as at an agent start). Usage: {@code
 * JournalRecoveryRun [records=100000] [opens=30]}.
 */
public final class JournalRecoveryRun {
  public static void main(String[] args) {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int opens = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    Path dir = BenchFiles.tempDir("journal-recovery-run");
    JournalConfig config =
        JournalConfig.of(dir, "bench-worker").withCompactAfterSegments(1_000_000);
    String session = JournalAppendBenchmark.SESSION;
    try (Journal j = Journal.open(config)) {
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
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    double[] wall = new double[opens];
    double[] cpu = new double[opens];
    long replayed = 0;
    for (int i = 0; i < opens; i++) {
      long c0 = mx.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      try (Journal j = Journal.open(config)) {
        replayed = j.report().recordsReplayed();
        wall[i] = (System.nanoTime() - t0) / 1e6;
        cpu[i] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
      }
    }
    System.out.printf(
        "records=%d replayed=%d dirBytes=%d first open: wall=%.1f ms cpu=%.1f ms%n",
        records, replayed, BenchFiles.directoryBytes(dir), wall[0], cpu[0]);
    double[] w = Arrays.copyOfRange(wall, 1, opens);
    double[] c = Arrays.copyOfRange(cpu, 1, opens);
    Arrays.sort(w);
    Arrays.sort(c);
    System.out.printf(
        "next %d opens: wall min=%.1f median=%.1f max=%.1f ms; cpu min=%.1f median=%.1f max=%.1f ms%n",
        opens - 1, w[0], w[w.length / 2], w[w.length - 1], c[0], c[c.length / 2], c[c.length - 1]);
    BenchFiles.deleteTree(dir);
  }
}
