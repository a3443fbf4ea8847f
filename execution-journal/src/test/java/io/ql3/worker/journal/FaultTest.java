package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.journal.JournalRecord.PullReserved;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Injected write/force errors and a full disk: no acknowledgement, no retry, unusable. */
class FaultTest {
  @TempDir Path dir;

  private void assertFailedWithoutRetry(Journal j, FaultyStorage st, Runnable inject) {
    j.append(session());
    inject.run();
    int writes = st.writes.get();
    int forces = st.forces.get();
    List<CompletableFuture<Long>> pending = new ArrayList<>();
    int refusedAtOnce = 0;
    for (int i = 0; i < 20; i++) {
      try {
        pending.add(j.appendAsync(new PullReserved("p" + i, 1)));
      } catch (JournalFailedException e) {
        refusedAtOnce++;
      }
    }
    assertThat(pending).isNotEmpty();
    for (CompletableFuture<Long> f : pending) {
      assertThatThrownBy(f::join).hasCauseInstanceOf(JournalFailedException.class);
    }
    assertThat(pending.size() + refusedAtOnce).isEqualTo(20);
    assertThat(j.status()).isEqualTo(Journal.Status.FAILED);
    assertThatThrownBy(() -> j.append(offer("x"))).isInstanceOf(JournalFailedException.class);
    assertThatThrownBy(j::facts).isInstanceOf(JournalFailedException.class);
    // Exactly one failed attempt: nothing was retried afterwards.
    assertThat(st.writes.get() - writes + st.forces.get() - forces).isLessThanOrEqualTo(2);
    j.close();
  }

  @Test
  void forceErrorFailsPendingAppendsAndIsNeverRetried() {
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    Journal j = Journal.open(config(dir), st, p -> {});
    assertFailedWithoutRetry(j, st, () -> st.failForce = true);
    int forces = st.forces.get();
    assertThat(st.forces.get()).isEqualTo(forces);
    // A new open (new process in real life) recovers from what is on disk.
    try (Journal again = Journal.open(config(dir))) {
      assertThat(again.status()).isEqualTo(Journal.Status.OPEN);
      assertThat(again.facts().session()).isPresent();
    }
  }

  @Test
  void writeErrorFailsPendingAppends() {
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    Journal j = Journal.open(config(dir), st, p -> {});
    assertFailedWithoutRetry(j, st, () -> st.failWrite = true);
  }

  @Test
  void fullDiskWhenANewSegmentIsNeeded() {
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    Journal j = Journal.open(config(dir), st, p -> {});
    j.append(session());
    // Appends never grow a preallocated segment: they go on until a new segment is needed.
    st.diskFull = true;
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < 20_000; i++) {
        futures.add(j.appendAsync(new PullReserved("fill-" + i, 1)));
      }
    } catch (JournalFailedException e) {
      // refused at once after the failure
    }
    long maxAcked = 0;
    Throwable failure = null;
    for (CompletableFuture<Long> f : futures) {
      try {
        maxAcked = Math.max(maxAcked, f.join());
      } catch (java.util.concurrent.CompletionException e) {
        failure = e.getCause();
      }
    }
    assertThat(maxAcked).isGreaterThan(1000);
    assertThat(failure)
        .isInstanceOf(JournalFailedException.class)
        .hasStackTraceContaining("No space left on device");
    long seq = maxAcked;
    assertThat(j.status()).isEqualTo(Journal.Status.FAILED);
    assertThat(j.usableSpace()).isZero();
    j.close();
    try (Journal again = Journal.open(config(dir))) {
      assertThat(again.facts().lastSeq()).isGreaterThanOrEqualTo(seq);
    }
  }

  @Test
  void anOpenInterruptedWhileDeclaringUncertainRunsStopsItsWriterBeforeReleasingTheLock()
      throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      j.append(started("a"));
    }
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    st.writerGate = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger writesMadeWhenOpenGaveUp = new AtomicInteger(-1);
    Thread opener =
        new Thread(
            () -> {
              try {
                Journal.open(config(dir), st, p -> {}).close();
              } catch (RuntimeException e) {
                writesMadeWhenOpenGaveUp.set(st.writesMade.get());
                failure.set(e);
              }
            },
            "opener");
    opener.start();
    st.writerAtGate.await(); // the writer is writing "a" uncertain; open waits for it
    int madeBeforeTheDeclaration = st.writesMade.get();
    opener.interrupt();
    // Either open gave up at once, its writer still writing, or it waits for the writer to stop.
    await(() -> !opener.isAlive() || stackOf(opener).contains("JournalWriter.stop"));
    st.writerGate.countDown();
    opener.join();

    assertThat(failure.get())
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("interrupt");
    assertThat(writesMadeWhenOpenGaveUp.get())
        .as("writes made when open gave up and released the lock")
        .isGreaterThan(madeBeforeTheDeclaration);
    assertThat(Thread.getAllStackTraces().keySet())
        .as("writer threads still alive")
        .noneMatch(t -> t.getName().startsWith("ql3-journal-writer[") && t.isAlive());
    try (Journal again = Journal.open(config(dir))) {
      assertThat(again.report().declaredUncertain()).as("declared again").isEmpty();
      assertThat(again.facts().pendingCompletions())
          .extracting(r -> r.offer().runId() + ":" + r.result().outcome())
          .containsExactly("a:UNCERTAIN");
    }
  }

  @Test
  void factsDoNotWaitForAForceInProgressAndHoldNoneOfItsRecords() throws Exception {
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    try (Journal j = Journal.open(config(dir), st, p -> {})) {
      j.append(session());
      st.writerGate = new CountDownLatch(1);
      CompletableFuture<Long> offer = j.appendAsync(offer("a"));
      try {
        st.writerAtGate.await(); // the batch holding "a" is applied and being written, not forced
        // Read on another thread: with a facts() that waits for the batch, this is the broken run.
        JournalFacts during =
            CompletableFuture.supplyAsync(j::facts).get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(during.accepted()).as("not durable yet").isEmpty();
        assertThat(offer).isNotDone();
      } finally {
        st.writerGate.countDown();
      }
      offer.join();
      assertThat(j.facts().accepted()).extracting(f -> f.key().runId()).containsExactly("a");
    }
  }

  private static String stackOf(Thread t) {
    return Arrays.toString(t.getStackTrace());
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    while (!condition.getAsBoolean()) {
      Thread.sleep(1);
    }
  }
}
