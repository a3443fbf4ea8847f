package io.ql3.worker.runtime.log;

import java.time.Instant;
import java.time.LocalDate;

/**
 * Appends an instant exactly as {@link Instant#toString()} writes it (ISO-8601 in UTC, the fraction
 * in groups of three digits, none when zero) without going through {@code DateTimeFormatter}, which
 * cost several times the rest of a log line on the interpreted edge profile. The date of the last
 * day written is kept. Years outside 0000..9999 fall back to {@link Instant#toString()}. The log's
 * timestamps and the status file's {@code updatedAt} are written with it (the formatter's classes
 * and tables would otherwise be loaded for them alone: docs/perf/code-rules.md).
 */
public final class LogTimestamp {
  private static final long MIN_SECOND = -62_167_219_200L; // 0000-01-01T00:00:00Z
  private static final long MAX_SECOND = 253_402_300_799L; // 9999-12-31T23:59:59Z

  /** The last day written and its "yyyy-mm-dd": replaced whole, so readers see one or the other. */
  private record Day(long epochDay, String text) {}

  private static volatile Day last = new Day(Long.MIN_VALUE, "");

  private LogTimestamp() {}

  /** {@code t} as {@link Instant#toString()} writes it. */
  public static String toString(Instant t) {
    StringBuilder b = new StringBuilder(30);
    append(b, t);
    return b.toString();
  }

  static void append(StringBuilder b, Instant t) {
    long s = t.getEpochSecond();
    if (s < MIN_SECOND || s > MAX_SECOND) {
      b.append(t);
      return;
    }
    long epochDay = Math.floorDiv(s, 86_400L);
    int secondOfDay = (int) Math.floorMod(s, 86_400L);
    Day d = last;
    if (d.epochDay != epochDay) {
      d = new Day(epochDay, LocalDate.ofEpochDay(epochDay).toString());
      last = d;
    }
    b.append(d.text).append('T');
    two(b, secondOfDay / 3600);
    b.append(':');
    two(b, secondOfDay / 60 % 60);
    b.append(':');
    two(b, secondOfDay % 60);
    int nano = t.getNano();
    if (nano != 0) {
      b.append('.');
      if (nano % 1_000_000 == 0) {
        digits(b, nano / 1_000_000, 3);
      } else if (nano % 1_000 == 0) {
        digits(b, nano / 1_000, 6);
      } else {
        digits(b, nano, 9);
      }
    }
    b.append('Z');
  }

  private static void two(StringBuilder b, int v) {
    b.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
  }

  private static void digits(StringBuilder b, int v, int width) {
    int at = b.length();
    b.setLength(at + width);
    for (int i = at + width - 1; i >= at; i--) {
      b.setCharAt(i, (char) ('0' + v % 10));
      v /= 10;
    }
  }
}
