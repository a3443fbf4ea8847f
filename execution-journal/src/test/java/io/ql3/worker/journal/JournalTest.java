package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.journal.JournalRecord.DrainBegun;
import io.ql3.worker.journal.JournalRecord.Offline;
import io.ql3.worker.journal.JournalRecord.OperatorResolved;
import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import io.ql3.worker.journal.JournalRecord.Superseded;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
  @TempDir Path dir;

  @Test
  void recordsSurviveReopenAndDeriveEveryPhase() {
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN);
      assertThat(j.append(session())).isEqualTo(1);
      j.append(new PullReserved("0190a8c4-1c2d-7abc-8def-000000000001", 3));
      j.append(offer("a"));
      j.append(offer("b"));
      j.append(started("b"));
      j.append(offer("c"));
      j.append(started("c"));
      j.append(failed("c"));
      fullRun(j, "d");
      j.append(offer("e"));
      j.append(new Superseded("e", 1));
    }
    try (Journal j = Journal.open(config(dir))) {
      JournalFacts f = j.facts();
      assertThat(f.session()).contains(new SessionFact(SESSION, 1, SessionStatus.ACTIVE));
      assertThat(f.openPulls())
          .containsExactly(new PullReservation("0190a8c4-1c2d-7abc-8def-000000000001", 3));
      assertThat(f.accepted()).extracting(r -> r.offer().runId()).containsExactly("a");
      // b was started with no result: this open declared it uncertain, durably.
      assertThat(j.report().declaredUncertain())
          .extracting(r -> r.offer().runId())
          .containsExactly("b");
      assertThat(f.running()).isEmpty();
      assertThat(f.pendingCompletions())
          .extracting(r -> r.offer().runId())
          .containsExactly("b", "c");
      assertThat(f.pendingCompletions().get(0).result().outcome()).isEqualTo(Outcome.UNCERTAIN);
      assertThat(f.pendingCompletions().get(0).childPid()).isEqualTo(4242);
      assertThat(f.pendingCompletions().get(1).result()).isEqualTo(failed("c").result());
      assertThat(f.settled())
          .extracting(r -> r.offer().runId() + ":" + r.settlement())
          .containsExactly("d:ACKNOWLEDGED", "e:SUPERSEDED");
      assertThat(f.recentCompletion("d", 1)).isPresent();
      assertThat(f.recentCompletion("d", 2)).isEmpty();
      assertThat(f.heldRuns()).isEqualTo(3);
      assertThat(f.reservedSlots()).isEqualTo(3);
    }
  }

  @Test
  void startedRunIsReportedUncertainExactlyOnceAcrossRestarts() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("x"));
      j.append(started("x"));
    }
    List<Integer> declaredCounts = new ArrayList<>();
    JournalFacts previous = null;
    for (int i = 0; i < 4; i++) {
      try (Journal j = Journal.open(config(dir))) {
        declaredCounts.add(j.report().declaredUncertain().size());
        JournalFacts f = j.facts();
        if (previous != null) {
          assertThat(f).isEqualTo(previous); // recovery is idempotent
        }
        previous = f;
      }
    }
    assertThat(declaredCounts).containsExactly(1, 0, 0, 0);
    assertThat(previous.pendingCompletions())
        .singleElement()
        .satisfies(r -> assertThat(r.result().outcome()).isEqualTo(Outcome.UNCERTAIN));
  }

  @Test
  void illegalTransitionsAreRefusedAndWriteNothing() {
    try (Journal j = Journal.open(config(dir))) {
      assertThatThrownBy(() -> j.append(offer("a"))).isInstanceOf(JournalStateException.class);
      long s = j.append(session());
      assertThatThrownBy(() -> j.append(started("zz"))).isInstanceOf(JournalStateException.class);
      j.append(offer("a"));
      assertThatThrownBy(() -> j.append(offer("a")))
          .isInstanceOf(JournalStateException.class)
          .hasMessageContaining("never run twice");
      assertThatThrownBy(() -> j.append(acked("a"))).isInstanceOf(JournalStateException.class);
      j.append(started("a"));
      assertThatThrownBy(() -> j.append(started("a"))).isInstanceOf(JournalStateException.class);
      assertThatThrownBy(() -> j.append(new SessionRegistered(SESSION2, 1)))
          .isInstanceOf(JournalStateException.class);
      assertThatThrownBy(() -> j.append(new Offline(SESSION, 1)))
          .isInstanceOf(JournalStateException.class)
          .hasMessageContaining("not settled");
      assertThatThrownBy(() -> j.append(new PullClosed("nope")))
          .isInstanceOf(JournalStateException.class);
      assertThat(j.facts().lastSeq()).isEqualTo(s + 2);
      j.append(succeeded("a"));
      j.append(acked("a"));
      assertThatThrownBy(() -> j.append(offer("a"))).isInstanceOf(JournalStateException.class);
    }
  }

  @Test
  void sessionLifecycleDrainOfflineAndNewGeneration() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(new PullReserved("p1", 2));
      j.append(offer("a"));
      j.append(new PullClosed("p1"));
      j.append(new DrainBegun(SESSION, 1));
      assertThatThrownBy(() -> j.append(new PullReserved("p2", 1)))
          .isInstanceOf(JournalStateException.class);
      assertThat(j.facts().session().orElseThrow().status()).isEqualTo(SessionStatus.DRAINING);
      j.append(new OperatorResolved("a", 1, "operator cancelled by hand"));
      j.append(new Offline(SESSION, 1));
      assertThat(j.facts().session().orElseThrow().status()).isEqualTo(SessionStatus.OFFLINE);
      assertThat(j.facts().settled())
          .singleElement()
          .satisfies(r -> assertThat(r.settlement()).isEqualTo(Settlement.OPERATOR_RESOLVED));
      j.append(new SessionRegistered(SESSION2, 2));
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.facts().session()).contains(new SessionFact(SESSION2, 2, SessionStatus.ACTIVE));
    }
  }

  @Test
  void concurrentAppendsShareForcesAndGetContiguousSequences() throws Exception {
    CountingStorage counting = new CountingStorage(new FileStorage(dir));
    int threads = 8;
    int perThread = 200;
    ConcurrentLinkedQueue<Long> seqs = new ConcurrentLinkedQueue<>();
    try (Journal j = Journal.open(config(dir), counting, p -> {})) {
      j.append(session());
      long forcesBefore = counting.forces.get();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int tt = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    return;
                  }
                  for (int i = 0; i < perThread; i++) {
                    seqs.add(j.append(new PullReserved("p-" + tt + "-" + i, 1)));
                  }
                });
        ts.add(th);
        th.start();
      }
      start.countDown();
      for (Thread th : ts) {
        th.join();
      }
      long forces = counting.forces.get() - forcesBefore;
      assertThat(seqs).hasSize(threads * perThread).doesNotHaveDuplicates();
      assertThat(seqs.stream().mapToLong(Long::longValue).max().getAsLong())
          .isEqualTo(1 + threads * perThread);
      // Group commit: never more than one force per record, and with 8 producers far fewer.
      assertThat(forces).isLessThan(threads * perThread);
      assertThat(j.facts().openPulls()).hasSize(threads * perThread);
    }
  }

  @Test
  void asyncAppendRidesTheNextBatch() throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      j.append(succeeded("a"));
      CompletableFuture<Long> ack = j.appendAsync(acked("a"));
      j.append(offer("b"));
      assertThat(ack).isDone();
      assertThat(ack.get()).isEqualTo(4);
    }
  }

  @Test
  void factsAreIdenticalBeforeAndAfterCompactionAndSizeStaysBounded() throws Exception {
    JournalConfig cfg = config(dir).withCompactAfterSegments(2).withCompletionWindow(50);
    JournalFacts before;
    try (Journal j = Journal.open(cfg)) {
      j.append(session());
      j.append(new PullReserved("p", 2));
      j.append(offer("keep-accepted"));
      j.append(offer("keep-started"));
      j.append(started("keep-started"));
      j.append(offer("keep-result"));
      j.append(failed("keep-result"));
      fullRunsAsync(j, "r", 3000);
      before = j.facts();
      j.compactNow();
      assertThat(j.facts()).isEqualTo(before);
      assertThat(before.settled()).hasSize(50);
      assertThat(before.settled().get(49).offer().runId()).isEqualTo("r2999");
    }
    try (Journal j = Journal.open(cfg)) {
      JournalFacts after = j.facts();
      // The started run becomes uncertain at reopen; everything else is identical.
      assertThat(after.settled()).isEqualTo(before.settled());
      assertThat(after.accepted()).isEqualTo(before.accepted());
      assertThat(after.openPulls()).isEqualTo(before.openPulls());
      assertThat(after.session()).isEqualTo(before.session());
      assertThat(j.report().snapshotSeq()).isEqualTo(before.lastSeq());
    }
    long bytes;
    try (var s = Files.list(dir)) {
      bytes = s.mapToLong(p -> p.toFile().length()).sum();
    }
    assertThat(bytes).isLessThan(4 * 256 * 1024);
  }

  @Test
  void theWindowHoldsAtMostItsTailBudgetThroughCompactionAndReopen() throws Exception {
    String tail = "x".repeat(16_384); // the longest tail a result carries
    int fits = JournalConfig.COMPLETION_WINDOW_TAIL_CHARS / tail.length();
    JournalConfig cfg = config(dir).withCompactAfterSegments(2);
    JournalFacts before;
    try (Journal j = Journal.open(cfg)) {
      j.append(session());
      for (int i = 0; i < fits + 40; i++) {
        String id = "big" + i;
        j.append(offer(id));
        j.append(
            new JournalRecord.ResultRecorded(
                id, 1, new RunResult(Outcome.SUCCEEDED, null, 1, 0, 20_000, tail)));
        j.append(acked(id));
      }
      j.append(offer("small"));
      j.append(succeeded("small"));
      j.append(acked("small"));
      before = j.facts();
      assertThat(before.settled()).hasSize(fits);
      assertThat(before.settled().get(fits - 1).offer().runId()).isEqualTo("small");
      assertThat(before.settled().get(0).offer().runId()).isEqualTo("big41");
      assertThat(before.recentCompletion("big40", 1)).isEmpty();
      assertThat(before.recentCompletion("big41", 1).orElseThrow().result().outputTail())
          .isEqualTo(tail);
      j.compactNow();
      assertThat(j.facts().settled()).isEqualTo(before.settled());
    }
    try (Journal j = Journal.open(cfg)) {
      assertThat(j.facts().settled()).isEqualTo(before.settled());
    }
  }

  @Test
  void foreignWorkerIsRecoveryRequired() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
    }
    try (Journal j =
        Journal.open(JournalConfig.of(dir, "other-worker").withSegmentBytes(256 * 1024))) {
      assertThat(j.status()).isEqualTo(Journal.Status.RECOVERY_REQUIRED);
      assertThat(j.facts().recoveryRequired().orElseThrow().reason())
          .isEqualTo(RecoveryRequired.Reason.FOREIGN_WORKER);
      assertThatThrownBy(() -> j.append(session()))
          .isInstanceOf(JournalRecoveryRequiredException.class);
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN); // nothing was touched
      assertThat(j.facts().lastSeq()).isEqualTo(1);
    }
  }

  @Test
  void closedJournalRefusesAppends() {
    Journal j = Journal.open(config(dir));
    j.close();
    assertThatThrownBy(() -> j.append(session())).isInstanceOf(JournalClosedException.class);
    j.close();
  }
}
