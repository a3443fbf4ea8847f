package io.ql3.worker.runtime.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class LogTimestampTest {

  private static String written(Instant t) {
    StringBuilder b = new StringBuilder("x");
    LogTimestamp.append(b, t);
    return b.substring(1);
  }

  @Property
  void writesExactlyWhatInstantToStringWrites(
      @ForAll @LongRange(min = -62_167_219_200L, max = 253_402_300_799L) long second,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nano) {
    Instant t = Instant.ofEpochSecond(second, nano);

    assertThat(written(t)).isEqualTo(t.toString());
    assertThat(LogTimestamp.toString(t)).isEqualTo(t.toString());
  }

  @Test
  void fractionsInGroupsOfThreeDaysAndTheYearBoundsAsInstantToString() {
    for (Instant t :
        List.of(
            Instant.parse("2026-12-03T07:42:27Z"),
            Instant.parse("2026-12-03T07:42:27.100Z"),
            Instant.parse("2026-12-03T07:42:27.000100Z"),
            Instant.parse("2026-12-03T07:42:27.000000001Z"),
            Instant.parse("2026-12-03T23:59:59.999999999Z"),
            Instant.parse("2026-12-04T00:00:00Z"),
            Instant.parse("1969-12-31T23:59:59.5Z"),
            Instant.parse("0000-01-01T00:00:00Z"),
            Instant.parse("9999-12-31T23:59:59.999Z"),
            Instant.ofEpochSecond(253_402_300_800L),
            Instant.ofEpochSecond(-62_167_219_201L),
            Instant.MAX,
            Instant.MIN)) {
      assertThat(written(t)).as("%s", t).isEqualTo(t.toString());
    }
  }
}
