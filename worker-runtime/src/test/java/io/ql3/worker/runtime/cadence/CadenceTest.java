package io.ql3.worker.runtime.cadence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CadenceTest {
  /** A period no test ever waits for: steps here happen only at start and on wake. */
  static final Duration NEVER = Duration.ofHours(1);

  @Test
  void firstStepRunsAtStartAndLaterStepsOnlyWhenWokenWhileTimeStandsStill() throws Exception {
    LinkedBlockingQueue<Long> steps = new LinkedBlockingQueue<>();
    Ticker frozen = () -> 42L;
    List<Throwable> errors = new ArrayList<>();
    try (Cadence c =
        new Cadence("test-cadence", NEVER, frozen, steps::add, (t, e) -> errors.add(e))) {
      c.start();
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
      c.start();
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
      c.start();
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
      c.start();
      for (int i = 0; i < 3; i++) {
        assertThat(steps.poll(10, TimeUnit.SECONDS)).isNotNull();
      }
    }
  }
}
