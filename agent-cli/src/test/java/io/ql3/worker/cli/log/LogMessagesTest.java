package io.ql3.worker.cli.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.text.MessageFormat;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogMessagesTest {
  @Test
  void numberedArgumentsAreReplacedByTheirStringValueInAnyOrder() {
    assertThat(LogMessages.format("expires in {0} days: {1}", 3L, "set"))
        .isEqualTo("expires in 3 days: set");
    assertThat(LogMessages.format("{1} before {0}", "a", Duration.ofSeconds(2)))
        .isEqualTo("PT2S before a");
    assertThat(LogMessages.format("{0}{0}", (Object) null)).isEqualTo("nullnull");
  }

  @Test
  void numbersAreWrittenWithoutGroupingUnlikeMessageFormat() {
    assertThat(LogMessages.format("read {0} bytes", 1_048_576)).isEqualTo("read 1048576 bytes");
    assertThat(MessageFormat.format("read {0} bytes", 1_048_576))
        .isNotEqualTo("read 1048576 bytes");
  }

  @Test
  void anArgumentWithoutAParameterStaysAsWritten() {
    assertThat(LogMessages.format("{0} and {3}", "a")).isEqualTo("a and {3}");
  }

  @Test
  void twoDigitArgumentsAreReplacedAndLongerOnesLeftToMessageFormat() {
    Object[] eleven = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "ten"};
    assertThat(LogMessages.format("{10}/{1}", eleven)).isEqualTo("ten/1");
    assertThat(LogMessages.format("{100}", eleven))
        .isEqualTo(MessageFormat.format("{100}", eleven));
  }

  @Test
  void anUnclosedBraceIsLeftToMessageFormatAndNeverThrows() {
    assertThat(LogMessages.format("{0} {", "a")).isEqualTo("{0} { [a]");
  }

  @Test
  void quotesAndFormatTypesAreLeftToMessageFormat() {
    assertThat(LogMessages.format("it''s {0}", "x")).isEqualTo("it's x");
    assertThat(LogMessages.format("'{0}' is {0}", "x")).isEqualTo("{0} is x");
    assertThat(LogMessages.format("{0,number,#.#}", 1.25))
        .isEqualTo(MessageFormat.format("{0,number,#.#}", 1.25));
  }

  @Test
  void aPatternMessageFormatRefusesIsWrittenWithItsParametersInsteadOfThrowing() {
    assertThat(LogMessages.format("{x} {0}", "a", 2)).isEqualTo("{x} {0} [a, 2]");
  }
}
