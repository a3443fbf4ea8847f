package io.ql3.worker.journal;

/** Argument checks shared by the record types; every failure is an IllegalArgumentException. */
final class Checks {
  private Checks() {}

  static String id(String name, String value, int maxChars) {
    if (isId(value, maxChars)) {
      return value;
    }
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    if (value.length() > maxChars) {
      throw new IllegalArgumentException(name + " longer than " + maxChars + " characters");
    }
    throw new IllegalArgumentException(name + " must be printable ASCII");
  }

  /** True when {@link #id} accepts {@code value}. */
  static boolean isId(String value, int maxChars) {
    if (value == null || value.isEmpty() || value.length() > maxChars) {
      return false;
    }
    for (char c : value.toCharArray()) { // not charAt (docs/perf/edge.md, "Sixteenth pass")
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  static long positive(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1: " + value);
    }
    return value;
  }

  static String text(String name, String value, int maxChars) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (value.codePointCount(0, value.length()) > maxChars) {
      throw new IllegalArgumentException(name + " longer than " + maxChars + " characters");
    }
    return value;
  }
}
