package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Simulated power cuts at random storage operations (inside appends, rollovers, compactions and
 * recovery itself), keeping only forced data plus a random subset of unforced 512 B / 4 KiB
 * sectors. After every cut the journal opens, no acknowledged record is missing, and a record that
 * was once found missing never comes back (a stale or reordered frame is never accepted).
 */
class PowerLossTest {
  @TempDir Path lockDir;

  @Test
  void powerCutsNeverLoseAcknowledgedRecordsNorResurrectStaleOnes() throws Exception {
    int cycles = Boolean.getBoolean("ql3.longTests") ? 3000 : 300;
    long seed = Long.getLong("ql3.seed", System.nanoTime());
    Random random = new Random(seed);
    JournalConfig cfg =
        JournalConfig.of(lockDir, WORKER)
            .withSegmentBytes(256 * 1024)
            .withCompactAfterSegments(2)
            .withCompletionWindow(1_000_000);
    SimulatedDisk disk = new SimulatedDisk(random, 512);
    Map<String, RunPhase> acked = new ConcurrentHashMap<>();
    Set<String> submitted = ConcurrentHashMap.newKeySet();
    Set<String> dead = new HashSet<>();
    AtomicLong maxAckedSeq = new AtomicLong();
    int opened = 0;
    int cutDuringOpen = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      disk.armCut(1 + random.nextInt(random.nextBoolean() ? 40 : 400));
      Journal j;
      try {
        j = Journal.open(cfg, disk, p -> {});
      } catch (UncheckedIOException | JournalFailedException e) {
        cutDuringOpen++;
        disk = disk.afterCut();
        assertThat(disk).as("open failed without a power cut: %s", e).isNotNull();
        continue;
      }
      try {
        assertThat(j.status())
            .as("seed %d cycle %d: %s", seed, cycle, j.report())
            .isEqualTo(Journal.Status.OPEN);
        opened++;
        verify(j.facts(), acked, submitted, dead, maxAckedSeq.get(), seed, cycle);
        if (j.facts().session().isEmpty()) {
          j.append(session());
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
          String prefix = "c" + cycle + "t" + t + "-";
          Thread th = new Thread(() -> work(j, prefix, acked, submitted, maxAckedSeq));
          threads.add(th);
          th.start();
        }
        for (Thread th : threads) {
          th.join();
        }
      } catch (JournalFailedException e) {
        // the cut landed in this cycle's own appends
      } finally {
        j.close();
      }
      disk = disk.cutNow();
    }
    System.out.printf(
        "power loss: %d cycles, %d opens verified, %d cuts during open, %d acked runs, "
            + "%d lost unacknowledged, seed %d%n",
        cycles, opened, cutDuringOpen, acked.size(), dead.size(), seed);
    assertThat(opened).isGreaterThan(cycles / 2);
    assertThat(acked).isNotEmpty();
  }

  private static void work(
      Journal j,
      String prefix,
      Map<String, RunPhase> acked,
      Set<String> submitted,
      AtomicLong maxAckedSeq) {
    try {
      for (int i = 0; i < 6; i++) {
        String id = prefix + i;
        submitted.add(id);
        ack(acked, maxAckedSeq, id, RunPhase.ACCEPTED, j.append(offer(id)));
        ack(acked, maxAckedSeq, id, RunPhase.STARTED, j.append(started(id)));
        ack(acked, maxAckedSeq, id, RunPhase.RESULT_RECORDED, j.append(succeeded(id)));
        ack(acked, maxAckedSeq, id, RunPhase.SETTLED, j.append(acked(id)));
      }
    } catch (JournalFailedException | JournalClosedException e) {
      // power lost
    }
  }

  private static void ack(
      Map<String, RunPhase> acked, AtomicLong maxSeq, String id, RunPhase phase, long seq) {
    acked.merge(id, phase, (a, b) -> a.compareTo(b) > 0 ? a : b);
    maxSeq.accumulateAndGet(seq, Math::max);
  }

  private static void verify(
      JournalFacts f,
      Map<String, RunPhase> acked,
      Set<String> submitted,
      Set<String> dead,
      long maxAckedSeq,
      long seed,
      int cycle) {
    assertThat(f.lastSeq()).as("seed %d cycle %d", seed, cycle).isGreaterThanOrEqualTo(maxAckedSeq);
    Map<String, RunFact> known = new HashMap<>();
    for (List<RunFact> l :
        List.of(f.accepted(), f.running(), f.pendingCompletions(), f.settled())) {
      l.forEach(r -> known.put(r.offer().runId(), r));
    }
    for (Map.Entry<String, RunPhase> e : acked.entrySet()) {
      RunFact r = known.get(e.getKey());
      assertThat(r)
          .as("acknowledged %s (%s) lost; seed %d cycle %d", e.getKey(), e.getValue(), seed, cycle)
          .isNotNull();
      assertThat(r.phase())
          .as("seed %d cycle %d run %s", seed, cycle, e.getKey())
          .isGreaterThanOrEqualTo(e.getValue());
    }
    for (String id : known.keySet()) {
      assertThat(dead)
          .as(
              "seed %d cycle %d: run %s was lost earlier and came back (stale frame)",
              seed, cycle, id)
          .doesNotContain(id);
    }
    for (String id : submitted) {
      if (!known.containsKey(id)) {
        dead.add(id);
      }
    }
    submitted.clear();
  }
}
