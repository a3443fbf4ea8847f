package io.ql3.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class ExitCodeTest {
  @Test
  void codesAreDistinctAscendingSysexitsNumbers() {
    int[] codes = Arrays.stream(ExitCode.values()).mapToInt(ExitCode::code).toArray();
    assertThat(codes).isSorted().doesNotHaveDuplicates();
    for (ExitCode e : ExitCode.values()) {
      assertThat(ExitCode.of(e.code())).isSameAs(e);
      assertThat(e.sysexitsName()).isEqualTo("EX_" + e.name());
      assertThat(e.code() == 0 || e.code() >= 64 && e.code() <= 78).as(e.name()).isTrue();
      assertThat(e.meaning()).doesNotContain("|").doesNotContain("\n");
    }
    assertThatThrownBy(() -> ExitCode.of(1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void usageLinesWrapUnderTheMeaning() {
    String text = ExitCode.usageLines(EnumSet.of(ExitCode.CONFIG, ExitCode.OK), 60);
    String[] lines = text.split("\n");
    assertThat(lines[0]).startsWith("   0  success:");
    assertThat(Arrays.stream(lines).filter(l -> l.startsWith("  78  configuration refused")))
        .hasSize(1);
    for (String l : lines) {
      assertThat(l.length()).as(l).isLessThanOrEqualTo(60);
      assertThat(l).matches("( {2}[ \\d]\\d {2}\\S| {6}\\S).*");
    }
    assertThat(text.replaceAll("\\s+", " ")).contains(ExitCode.CONFIG.plainMeaning());
  }
}
