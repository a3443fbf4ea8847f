package io.ql3.worker.contract;

/**
 * Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates (CESU-8), max U+10FFFF. The
 * contract's bodies are checked with it, and the agent's configuration file.
 */
public final class Utf8 {
  private Utf8() {}

  /** Index of the first byte of an invalid sequence in [from, to), or -1 when all is valid. */
  public static int firstInvalid(byte[] b, int from, int to) {
    int i = from;
    while (i < to) {
      int c = b[i];
      if (c >= 0) {
        i++;
        continue;
      }
      c &= 0xFF;
      int need;
      int min2;
      int max2 = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        min2 = 0x80;
      } else if (c == 0xE0) {
        need = 2;
        min2 = 0xA0; // no overlong
      } else if (c == 0xED) {
        need = 2;
        min2 = 0x80;
        max2 = 0x9F; // no surrogates
      } else if (c >= 0xE1 && c <= 0xEF) {
        need = 2;
        min2 = 0x80;
      } else if (c == 0xF0) {
        need = 3;
        min2 = 0x90;
      } else if (c >= 0xF1 && c <= 0xF3) {
        need = 3;
        min2 = 0x80;
      } else if (c == 0xF4) {
        need = 3;
        min2 = 0x80;
        max2 = 0x8F;
      } else {
        return i;
      }
      if (i + need >= to) {
        return i; // truncated sequence
      }
      int b2 = b[i + 1] & 0xFF;
      if (b2 < min2 || b2 > max2) {
        return i;
      }
      for (int k = 2; k <= need; k++) {
        int bk = b[i + k] & 0xFF;
        if (bk < 0x80 || bk > 0xBF) {
          return i;
        }
      }
      i += need + 1;
    }
    return -1;
  }

  /** Number of UTF-8 bytes of {@code s} (which holds scalar values). */
  static int encodedLength(String s) {
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    int n = 0;
    for (int i = 0, len = cs.length; i < len; i++) {
      char c = cs[i];
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < len
          && Character.isLowSurrogate(cs[i + 1])) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
