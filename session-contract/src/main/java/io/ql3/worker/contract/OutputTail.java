package io.ql3.worker.contract;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Builds a completion's {@code outputTail}: the end of a run's output decoded as UTF-8 (invalid
 * sequences replaced by U+FFFD), trimmed from the front, by whole characters, until its canonical
 * escaped JSON form is at most {@value RunResult#MAX_OUTPUT_TAIL_BYTES} bytes.
 */
public final class OutputTail {
  private OutputTail() {}

  /** The longest fitting suffix of {@code tailBytes} decoded leniently. */
  public static String of(byte[] tailBytes) {
    return of(tailBytes, 0, tailBytes.length);
  }

  public static String of(byte[] b, int off, int len) {
    // Only the last 16384 bytes can matter: every character costs at least one escaped byte
    // per input byte... except U+FFFD replacements (3 bytes for 1). Decode a bounded window.
    int window = Math.min(len, RunResult.MAX_OUTPUT_TAIL_BYTES + 3);
    int start = off + len - window;
    // Skip continuation bytes at a cut so we do not invent a replacement for a split character.
    int skip = 0;
    while (window - skip > 0 && skip < 3 && start > off && (b[start + skip] & 0xC0) == 0x80) {
      skip++;
    }
    String s = decode(b, start + skip, window - skip);
    return fit(s);
  }

  /** Drops leading characters of {@code s} until its escaped form fits. */
  public static String fit(String s) {
    int total = CanonicalWriter.escapedLength(s);
    int i = 0;
    while (total > RunResult.MAX_OUTPUT_TAIL_BYTES) {
      int cp = s.codePointAt(i);
      total -= cost(cp);
      i += Character.charCount(cp);
    }
    return i == 0 ? s : s.substring(i);
  }

  private static int cost(int cp) {
    if (cp < 0x80) {
      return CanonicalWriter.escapedAsciiLength(cp);
    }
    return cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }

  private static String decode(byte[] b, int off, int len) {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    try {
      CharBuffer cb = d.decode(ByteBuffer.wrap(b, off, len));
      return cb.toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalStateException("REPLACE decoder cannot fail", e);
    }
  }
}
