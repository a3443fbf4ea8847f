package io.ql3.worker.runtime.exec;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The contract's outputTail size rule (section 5, complete): UTF-8 with invalid sequences
 * replaced, at most {@value #MAX_ESCAPED_BYTES} bytes in canonical escaped JSON form (without the
 * quotes), leading characters dropped until it fits.
 *
 * <p>Kept here only until session-contract publishes the rule; then this class delegates.
 */
final class OutputTailText {

  static final int MAX_ESCAPED_BYTES = 16384;

  private OutputTailText() {}

  /**
   * @param raw the last bytes of the output
   * @param truncatedFront true when {@code raw} does not start at the first byte of the output:
   *     then up to 3 leading UTF-8 continuation bytes (the rest of a cut character) are skipped
   */
  static String fromBytes(byte[] raw, boolean truncatedFront) {
    int start = 0;
    if (truncatedFront) {
      while (start < raw.length && start < 3 && (raw[start] & 0xC0) == 0x80) {
        start++;
      }
    }
    String text = decode(raw, start);
    return fit(text);
  }

  private static String decode(byte[] raw, int start) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE)
            .replaceWith("\uFFFD");
    try {
      CharBuffer chars = decoder.decode(ByteBuffer.wrap(raw, start, raw.length - start));
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException("REPLACE decoder cannot fail", e);
    }
  }

  /** Drops leading code points until the escaped form fits. */
  static String fit(String text) {
    // Walk from the end, summing each code point's escaped size; stop before overflowing.
    int size = 0;
    int i = text.length();
    while (i > 0) {
      int cp = text.codePointBefore(i);
      int cost = escapedSize(cp);
      if (size + cost > MAX_ESCAPED_BYTES) {
        break;
      }
      size += cost;
      i -= Character.charCount(cp);
    }
    return text.substring(i);
  }

  /** Bytes of one code point in the contract's canonical escaping (section 3). */
  static int escapedSize(int cp) {
    switch (cp) {
      case '"':
      case '\\':
      case '\b':
      case '\f':
      case '\n':
      case '\r':
      case '\t':
        return 2;
      default:
        if (cp < 0x20) {
          return 6; // \\u00xx
        }
        if (cp < 0x80) {
          return 1;
        }
        if (cp < 0x800) {
          return 2;
        }
        if (cp < 0x10000) {
          return 3;
        }
        return 4;
    }
  }
}
