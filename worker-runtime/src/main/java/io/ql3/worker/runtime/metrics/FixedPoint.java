package io.ql3.worker.runtime.metrics;

/**
 * A count of small units written as a decimal of the large one: {@code of(1_234_567, 6)} is {@code
 * "1.234567"} (microseconds as seconds). Exact for every {@code long}, unlike {@code
 * String.format("%.6f", micros / 1e6)}, and without the JDK's formatter, whose locale data the edge
 * agent otherwise never loads (docs/perf/code-rules.md).
 */
final class FixedPoint {
  private FixedPoint() {}

  static String of(long units, int scale) {
    String s = Long.toString(units);
    boolean negative = units < 0;
    String digits = negative ? s.substring(1) : s;
    if (digits.length() <= scale) {
      digits = "0".repeat(scale + 1 - digits.length()) + digits;
    }
    int point = digits.length() - scale;
    return (negative ? "-" : "") + digits.substring(0, point) + "." + digits.substring(point);
  }
}
