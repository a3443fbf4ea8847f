package io.ql3.worker.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class FixedPointTest {
  @Test
  void unitsAreWrittenExactlyAsADecimalOfTheLargerUnit() {
    assertThat(FixedPoint.of(1_234_567, 6)).isEqualTo("1.234567");
    assertThat(FixedPoint.of(0, 6)).isEqualTo("0.000000");
    assertThat(FixedPoint.of(42, 3)).isEqualTo("0.042");
    assertThat(FixedPoint.of(-1_500, 3)).isEqualTo("-1.500");
    for (long v :
        new long[] {
          1,
          9,
          10,
          999_999,
          1_000_000,
          -1,
          -999,
          123_456_789_012_345L,
          Long.MAX_VALUE,
          Long.MIN_VALUE
        }) {
      for (int scale : new int[] {3, 6}) {
        assertThat(FixedPoint.of(v, scale))
            .as("%d at scale %d", v, scale)
            .isEqualTo(BigDecimal.valueOf(v, scale).toPlainString());
      }
    }
  }
}
