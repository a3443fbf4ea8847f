package io.ql3.worker.runtime.cadence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CadenceTest {
  /** A period no test ever waits for: steps here happen only at start and on wake. */
  static final Duration NEVER = Duration.ofHours(1);

  /** Runs the cadence on a thread of the test's own until it is closed. */
  static void runOnAThread(Cadence c) {
    new Thread(() -> c.runHere(() -> false)).start();
  }

  @Test
  void firstStepRunsAtStartAndLaterStepsOnlyWhenWokenWhileTimeStandsStill() throws Exception {
    LinkedBlockingQueue<Long> steps = new LinkedBlockingQueue<>();
    Ticker frozen = () -> 42L;
    List<Throwable> errors = new ArrayList<>();
    try (Cadence c =
        new Cadence("test-cadence", NEVER, frozen, steps::add, (t, e) -> errors.add(e))) {
      runOnAThread(c);
      assertThat(steps.poll(10, TimeUnit.SECONDS)).isEqualTo(42L);
      for (int i = 0; i < 5; i++) {
        c.wake();
        assertThat(steps.poll(10, TimeUnit.SECONDS)).isEqualTo(42L);
      }
    }
    // Closed: exactly one step per wake plus the first, none from the (frozen) timer.
    assertThat(steps).isEmpty();
    assertThat(errors).isEmpty();
  }

  @Test
  void stepsRunOnTheNamedCadenceThreadAndNeverOverlap() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    LinkedBlockingQueue<String> names = new LinkedBlockingQueue<>();
    Cadence.Step step =
        now -> {
          maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
          names.add(Thread.currentThread().getName());
          inside.decrementAndGet();
        };
    try (Cadence c = new Cadence("ql3-cadence", NEVER, () -> 0L, step, (t, e) -> {})) {
      runOnAThread(c);
      for (int i = 0; i < 50; i++) {
        c.wake();
      }
      assertThat(names.poll(10, TimeUnit.SECONDS)).isEqualTo("ql3-cadence");
    }
    assertThat(maxInside.get()).isEqualTo(1);
  }

  @Test
  void aFailingStepIsReportedAndTheCadenceGoesOn() throws Exception {
    LinkedBlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
    LinkedBlockingQueue<Integer> steps = new LinkedBlockingQueue<>();
    AtomicInteger n = new AtomicInteger();
    Cadence.Step step =
        now -> {
          int i = n.incrementAndGet();
          steps.add(i);
          if (i == 1) {
            throw new IllegalStateException("boom");
          }
        };
    try (Cadence c = new Cadence("test-cadence", NEVER, () -> 0L, step, (t, e) -> errors.add(e))) {
      runOnAThread(c);
      assertThat(steps.poll(10, TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(errors.poll(10, TimeUnit.SECONDS)).hasMessage("boom");
      c.wake();
      assertThat(steps.poll(10, TimeUnit.SECONDS)).isEqualTo(2);
    }
  }

  @Test
  void theTimerStepsWhenTheTickerPassesThePeriod() throws Exception {
    // The ticker jumps a full period per read, so every wait is already over: the timer alone
    // keeps stepping without any wake.
    AtomicInteger reads = new AtomicInteger();
    Ticker fast = () -> reads.getAndIncrement() * NEVER.toNanos();
    LinkedBlockingQueue<Long> steps = new LinkedBlockingQueue<>();
    try (Cadence c = new Cadence("test-cadence", NEVER, fast, steps::add, (t, e) -> {})) {
      runOnAThread(c);
      for (int i = 0; i < 3; i++) {
        assertThat(steps.poll(10, TimeUnit.SECONDS)).isNotNull();
      }
    }
  }

  @Test
  void runHereStepsOnTheCallersThreadUnderTheCadencesNameUntilDoneThenGivesTheNameBack() {
    List<String> names = new ArrayList<>();
    AtomicInteger n = new AtomicInteger();
    // The ticker jumps a full period per read: the timer alone steps, as in the test above.
    AtomicInteger reads = new AtomicInteger();
    Ticker fast = () -> reads.getAndIncrement() * NEVER.toNanos();
    Cadence.Step step =
        now -> {
          names.add(Thread.currentThread().getName());
          n.incrementAndGet();
        };
    String caller = Thread.currentThread().getName();
    try (Cadence c = new Cadence("ql3-cadence", NEVER, fast, step, (t, e) -> {})) {
      c.runHere(() -> n.get() == 3);
      assertThat(c.isCadenceThread()).isTrue();
    }
    assertThat(names).containsExactly("ql3-cadence", "ql3-cadence", "ql3-cadence");
    assertThat(Thread.currentThread().getName()).isEqualTo(caller);
  }

  @Test
  void closeFromAnotherThreadEndsRunHereAfterTheStepInProgressAndWaitsForIt() throws Exception {
    LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
    CountDownLatch inStep = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Cadence.Step step =
        now -> {
          inStep.countDown();
          release.await();
          events.add("step ended");
        };
    Cadence c = new Cadence("test-cadence", NEVER, () -> 0L, step, (t, e) -> {});
    Thread runner =
        new Thread(
            () -> {
              c.runHere(() -> false);
              events.add("runHere returned");
            });
    runner.start();
    assertThat(inStep.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer =
        new Thread(
            () -> {
              c.close();
              events.add("close returned");
            });
    closer.start();
    // close() waits for the step in progress: parked, and nothing has returned while it is held.
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // a bound, not a wait
    while (closer.getState() != Thread.State.WAITING
        && closer.getState() != Thread.State.TERMINATED) {
      assertThat(System.nanoTime()).as("close() parked or ended").isLessThan(giveUp);
      Thread.onSpinWait();
    }
    assertThat(events).isEmpty();
    release.countDown();
    assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("step ended");
    runner.join(10_000);
    closer.join(10_000);
    assertThat(events).containsExactlyInAnyOrder("runHere returned", "close returned");
  }

  @Test
  void aCadenceRunsOnce() {
    AtomicInteger steps = new AtomicInteger();
    try (Cadence c =
        new Cadence(
            "test-cadence", NEVER, () -> 0L, now -> steps.incrementAndGet(), (t, e) -> {})) {
      c.close();
      c.runHere(() -> false); // closed before it ran: returns at once, without a step
      assertThat(steps.get()).isZero();
      assertThatThrownBy(() -> c.runHere(() -> false)).isInstanceOf(IllegalStateException.class);
    }
  }
}
