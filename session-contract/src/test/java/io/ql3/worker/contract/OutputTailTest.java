package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class OutputTailTest {
  private static final int MAX = RunResult.MAX_OUTPUT_TAIL_BYTES;

  @Test
  void shortOutputIsKeptWhole() {
    assertThat(OutputTail.of("hello\n".getBytes(StandardCharsets.UTF_8))).isEqualTo("hello\n");
    assertThat(OutputTail.of(new byte[0])).isEmpty();
  }

  @Test
  void longAsciiKeepsTheLast16384Characters() {
    byte[] b = new byte[100_000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + i % 26);
    }
    String tail = OutputTail.of(b);
    assertThat(tail).hasSize(MAX);
    assertThat(tail.getBytes(StandardCharsets.US_ASCII))
        .isEqualTo(Arrays.copyOfRange(b, b.length - MAX, b.length));
  }

  @Test
  void controlCharactersCountEscaped() {
    byte[] b = new byte[20_000];
    Arrays.fill(b, (byte) 1); // each escapes to \u0001: 6 bytes
    String tail = OutputTail.of(b);
    assertThat(tail).hasSize(MAX / 6);
    assertThat(CanonicalJson.escapedLength(tail)).isLessThanOrEqualTo(MAX);
    b[b.length - 1] = '\n';
    String t2 = OutputTail.of(b);
    assertThat(CanonicalJson.escapedLength(t2)).isLessThanOrEqualTo(MAX);
    assertThat(t2).endsWith("\n");
  }

  @Test
  void invalidUtf8IsReplaced() {
    byte[] b = {'o', 'k', (byte) 0xE9, ' ', (byte) 0xC0, (byte) 0xAF, '!'};
    String tail = OutputTail.of(b);
    assertThat(tail).startsWith("ok\uFFFD ").endsWith("!");
    assertThat(tail).doesNotContain("\u00e9");
  }

  @Test
  void aCharacterCutByTheWindowIsDroppedNotReplaced() {
    // 16384 three-byte characters plus one: the window starts inside a character.
    String euro = "\u20ac".repeat(6000);
    byte[] b = euro.getBytes(StandardCharsets.UTF_8);
    String tail = OutputTail.of(b);
    assertThat(tail).doesNotContain("\uFFFD");
    assertThat(CanonicalJson.escapedLength(tail)).isLessThanOrEqualTo(MAX);
    assertThat(tail).hasSize(MAX / 3);
  }

  @Test
  void vectorTailsAreAccepted() throws Exception {
    CompleteRequest r =
        CompleteRequest.parse(Vectors.bytes("requests/complete-failed-output-tail-16384.json"));
    assertThat(CanonicalJson.escapedLength(r.result().outputTail())).isEqualTo(MAX);
    assertThat(OutputTail.fit(r.result().outputTail())).isEqualTo(r.result().outputTail());
  }
}
