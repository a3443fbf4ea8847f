package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class OutputTailProperties {
  private static final int MAX = RunResult.MAX_OUTPUT_TAIL_BYTES;

  /** The tail fits, is a suffix of the decoded output, and is the longest such suffix. */
  @Property(tries = 200)
  void longestFittingSuffix(@ForAll("outputs") byte[] out) {
    String tail = OutputTail.of(out);
    int escaped = CanonicalJson.escapedLength(tail);
    assertThat(escaped).isLessThanOrEqualTo(MAX);
    String whole = new String(out, StandardCharsets.UTF_8);
    if (CanonicalJson.escapedLength(whole) <= MAX) {
      assertThat(tail).isEqualTo(whole);
    } else {
      assertThat(whole).endsWith(tail);
      int prev = whole.offsetByCodePoints(whole.length() - tail.length(), -1);
      assertThat(CanonicalJson.escapedLength(whole.substring(prev))).isGreaterThan(MAX);
    }
  }

  @Provide
  Arbitrary<byte[]> outputs() {
    Arbitrary<String> chunks =
        Arbitraries.oneOf(
            Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(2000),
            Arbitraries.strings().withCharRange('\u0000', '\u001f').ofMaxLength(3000),
            Arbitraries.strings().withChars("\u00e9\u20ac\ud7ff\u4e2d").ofMaxLength(3000),
            Arbitraries.just("\ud83d\ude80".repeat(1000)));
    return chunks
        .list()
        .ofMaxSize(12)
        .map(l -> String.join("", l).getBytes(StandardCharsets.UTF_8));
  }
}
