package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void delayDoublesWithEqualJitterAndIsBounded() {
    Backoff low = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(60), () -> 0.0);
    Backoff high = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(60), () -> 0.999999);
    long[] ceilings = {500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000};
    for (int n = 1; n <= ceilings.length; n++) {
      long ceiling = Duration.ofMillis(ceilings[n - 1]).toNanos();
      assertThat(low.delayNanos(n)).isEqualTo(ceiling / 2);
      assertThat(high.delayNanos(n)).isBetween(ceiling / 2, ceiling);
    }
    assertThat(high.delayNanos(Integer.MAX_VALUE))
        .isLessThanOrEqualTo(Duration.ofSeconds(60).toNanos());
    assertThat(low.delayNanos(10_000)).isEqualTo(Duration.ofSeconds(30).toNanos());
  }

  @Test
  void theStatefulFormCountsFailuresUntilASuccessResetsIt() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8), () -> 0.0);
    assertThat(b.nextDelayNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
    assertThat(b.nextDelayNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(b.nextDelayNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(b.failures()).isEqualTo(3);
    b.reset();
    assertThat(b.nextDelayNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
  }
}
