package io.ql3.worker.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real kill -9: a child JVM appends continuously from several threads and is SIGKILLed at a random
 * moment (sometimes during its own start-up and recovery). After every kill the journal must open,
 * and every record whose append returned before the kill must be there. {@code
 * -Dql3.longTests=true} multiplies the iterations.
 */
class CrashTest {
  static final int THREADS = 4;
  static final int MAX_RUNS = 800;

  @TempDir Path dir;

  static JournalConfig childConfig(Path dir) {
    // Small segments and early compaction so kills also land inside rollover and compaction.
    return JournalConfig.of(dir, Fixtures.WORKER)
        .withSegmentBytes(256 * 1024)
        .withCompactAfterSegments(2)
        .withCompletionWindow(1024);
  }

  @Test
  void killNineAtRandomMomentsNeverLosesAnAcknowledgedRecord() throws Exception {
    int iterations = Boolean.getBoolean("ql3.longTests") ? 2000 : 200;
    long seed = Long.getLong("ql3.seed", System.nanoTime());
    // Two independent lanes (directories) so the two cores overlap child start-up.
    int lanes = 2;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(lanes);
    List<java.util.concurrent.Future<long[]>> results = new java.util.ArrayList<>();
    for (int lane = 0; lane < lanes; lane++) {
      Path laneDir = dir.resolve("lane-" + lane);
      long laneSeed = seed + lane;
      int n = iterations / lanes;
      results.add(pool.submit(() -> lane(laneDir, laneSeed, n)));
    }
    long kills = 0;
    long beforeReady = 0;
    long records = 0;
    try {
      for (java.util.concurrent.Future<long[]> f : results) {
        long[] r = f.get();
        kills += r[0];
        beforeReady += r[1];
        records += r[2];
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "crash test: %d kills, %d before READY, %d acknowledged records checked, seed %d%n",
        kills, beforeReady, records, seed);
    assertThat(kills).isGreaterThanOrEqualTo(iterations);
    assertThat(records).isGreaterThan(iterations);
  }

  private static long[] lane(Path dir, long seed, int iterations) throws Exception {
    Random random = new Random(seed);
    long totalAcked = 0;
    int killedBeforeReady = 0;
    Map<RunKey, RunPhase> carried = new HashMap<>();
    for (int it = 0; it < iterations; it++) {
      ChildJvm child =
          ChildJvm.start(
              CrashChild.class, dir.toString(), String.valueOf(THREADS), String.valueOf(MAX_RUNS));
      if (random.nextInt(10) == 0) {
        Thread.sleep(random.nextInt(250)); // may land in JVM start, open or recovery
      } else {
        String first = child.awaitLine("A ", 30_000);
        assertThat(first)
            .as("child did not append (seed %d, iteration %d): %s", seed, it, child.lines)
            .isNotNull();
        Thread.sleep(random.nextInt(40));
      }
      child.kill9();
      if (child.lines.stream().noneMatch(l -> l.startsWith("READY"))) {
        killedBeforeReady++;
      }
      Map<RunKey, RunPhase> acked = new HashMap<>();
      long maxSeq = 0;
      for (String l : child.lines) {
        String[] p = l.split(" ");
        if (p[0].equals("A")) {
          acked.merge(
              new RunKey(p[1], 1), RunPhase.valueOf(p[2]), (a, b) -> a.compareTo(b) > 0 ? a : b);
          maxSeq = Math.max(maxSeq, Long.parseLong(p[3]));
          totalAcked++;
        }
      }
      verify(dir, seed, it, acked, maxSeq, carried);
    }
    return new long[] {iterations, killedBeforeReady, totalAcked};
  }

  private static void verify(
      Path dir,
      long seed,
      int it,
      Map<RunKey, RunPhase> acked,
      long maxSeq,
      Map<RunKey, RunPhase> carried) {
    try (Journal j = Journal.open(childConfig(dir))) {
      assertThat(j.status())
          .as("journal must open after kill (seed %d, iteration %d): %s", seed, it, j.report())
          .isEqualTo(Journal.Status.OPEN);
      JournalFacts f = j.facts();
      assertThat(f.lastSeq()).isGreaterThanOrEqualTo(maxSeq);
      Map<RunKey, RunFact> known = new HashMap<>();
      f.accepted().forEach(r -> known.put(r.key(), r));
      f.running().forEach(r -> known.put(r.key(), r));
      f.pendingCompletions().forEach(r -> known.put(r.key(), r));
      f.settled().forEach(r -> known.put(r.key(), r));
      assertThat(f.running()).as("started runs are declared uncertain at open").isEmpty();
      for (Map.Entry<RunKey, RunPhase> e : acked.entrySet()) {
        RunFact fact = known.get(e.getKey());
        assertThat(fact)
            .as(
                "acknowledged %s (%s) lost; seed %d iteration %d",
                e.getKey(), e.getValue(), seed, it)
            .isNotNull();
        assertThat(fact.phase()).as("phase of %s", e.getKey()).isGreaterThanOrEqualTo(e.getValue());
        if (e.getValue() == RunPhase.STARTED && fact.phase() == RunPhase.RESULT_RECORDED) {
          assertThat(fact.result().outcome()).isIn(Outcome.UNCERTAIN, Outcome.SUCCEEDED);
        }
      }
      // Unsettled runs of earlier children are never lost or moved backwards.
      for (Map.Entry<RunKey, RunPhase> e : carried.entrySet()) {
        assertThat(known.get(e.getKey())).as("earlier run %s lost", e.getKey()).isNotNull();
        assertThat(known.get(e.getKey()).phase()).isGreaterThanOrEqualTo(e.getValue());
      }
      carried.clear();
      f.accepted().forEach(r -> carried.put(r.key(), r.phase()));
      f.pendingCompletions().forEach(r -> carried.put(r.key(), r.phase()));
    }
  }
}
