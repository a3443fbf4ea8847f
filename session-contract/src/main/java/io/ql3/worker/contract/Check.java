package io.ql3.worker.contract;

import java.util.Objects;

/** Validation used by the wire records' constructors; throws {@link InvalidWireValueException}. */
final class Check {
  private Check() {}

  static <T> T present(T v, String ptr) {
    if (v == null) {
      throw new InvalidWireValueException(ViolationReason.NULL_NOT_ALLOWED, ptr, "value is null");
    }
    return v;
  }

  static long range(long v, long min, long max, String ptr) {
    if (v < min || v > max) {
      throw new InvalidWireValueException(
          ViolationReason.OUT_OF_RANGE, ptr, v + " outside " + min + ".." + max);
    }
    return v;
  }

  static int intRange(long v, int min, int max, String ptr) {
    return (int) range(v, min, max, ptr);
  }

  static long integer(long v, String ptr) {
    return range(v, 0, JsonValue.MAX_INTEGER, ptr);
  }

  /** A string of Unicode scalar values with {@code min..max} code points. */
  static String chars(String s, int min, int max, String ptr) {
    present(s, ptr);
    scalar(s, ptr);
    int n = s.codePointCount(0, s.length());
    if (n < min || n > max) {
      throw new InvalidWireValueException(
          ViolationReason.OUT_OF_RANGE,
          ptr,
          "length " + n + " characters outside " + min + ".." + max);
    }
    return s;
  }

  /** Refuses lone surrogates (strings are sequences of Unicode scalar values). */
  static String scalar(String s, String ptr) {
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    for (int i = 0, n = cs.length; i < n; i++) {
      char c = cs[i];
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1])) {
          i++;
        } else {
          throw new InvalidWireValueException(
              ViolationReason.LONE_SURROGATE, ptr, "lone surrogate");
        }
      }
    }
    return s;
  }

  static String noNul(String s, String ptr) {
    if (s.indexOf('\0') >= 0) {
      throw new InvalidWireValueException(ViolationReason.OUT_OF_RANGE, ptr, "NUL character");
    }
    return s;
  }

  static String identifier(boolean ok, String s, String what, String ptr) {
    if (!ok) {
      throw new InvalidWireValueException(
          ViolationReason.BAD_IDENTIFIER, ptr, "not a valid " + what + ": " + quote(s));
    }
    return s;
  }

  /** {@code s} in quotes, cut to 77 chars and "..." when longer than 80, never inside a pair. */
  static String quote(String s) {
    Objects.requireNonNull(s);
    if (s.length() <= 80) {
      return "'" + s + "'";
    }
    int end = Character.isHighSurrogate(s.charAt(76)) ? 76 : 77;
    return "'" + s.substring(0, end) + "...'";
  }

  static InvalidWireValueException outOfRange(String ptr, String detail) {
    return new InvalidWireValueException(ViolationReason.OUT_OF_RANGE, ptr, detail);
  }

  /** {@code min..max} characters of printable ASCII U+0020..U+007E. */
  static String printableAscii(String s, int min, int max, String ptr) {
    if (s.length() < min || s.length() > max) {
      throw Check.outOfRange(ptr, "length " + s.length() + " outside " + min + ".." + max);
    }
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    for (int i = 0; i < cs.length; i++) {
      char c = cs[i];
      if (c < 0x20 || c > 0x7E) {
        throw Check.outOfRange(ptr, "not printable ASCII at index " + i);
      }
    }
    return s;
  }

  /** {@code 1..max} characters of [a-z0-9_] (architecture, os). */
  static String token(String s, int max, String ptr) {
    if (s.isEmpty() || s.length() > max) {
      throw Check.outOfRange(ptr, "length " + s.length() + " outside 1.." + max);
    }
    for (char c : s.toCharArray()) { // not charAt (docs/perf/edge.md, "Sixteenth pass")
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
        throw Check.outOfRange(ptr, "not a lowercase token: " + Check.quote(s));
      }
    }
    return s;
  }
}
