package io.ql3.worker.cli.log;

import java.text.MessageFormat;
import java.util.Arrays;

/**
 * The {@link System.Logger} message patterns of the agent's own code: {@code {0}}, {@code {1}}, ...
 * replaced by {@link String#valueOf} of the parameter. A pattern with anything else of {@link
 * MessageFormat}'s syntax (a quote, a format type such as {@code {0,number}}) goes to {@link
 * MessageFormat}. The common case skips it because it loads the JDK's locale data, which the edge
 * agent otherwise never needs (docs/perf/edge.md, "Eleventh pass"), and writes numbers with
 * grouping ("1,024").
 */
final class LogMessages {
  private LogMessages() {}

  static String format(String pattern, Object... params) {
    StringBuilder out = new StringBuilder(pattern.length() + 32 * params.length);
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i);
      if (c == '\'') {
        return messageFormat(pattern, params);
      }
      if (c != '{') {
        out.append(c);
        i++;
        continue;
      }
      int close = pattern.indexOf('}', i);
      int index = close < 0 ? -1 : argumentIndex(pattern, i + 1, close);
      if (index < 0) {
        return messageFormat(pattern, params);
      }
      out.append(
          index < params.length ? String.valueOf(params[index]) : pattern.substring(i, close + 1));
      i = close + 1;
    }
    return out.toString();
  }

  /** A log line must not throw: a pattern {@link MessageFormat} refuses is written as it is. */
  private static String messageFormat(String pattern, Object... params) {
    try {
      return MessageFormat.format(pattern, params);
    } catch (IllegalArgumentException e) {
      return pattern + " " + Arrays.toString(params);
    }
  }

  /** The number between {@code from} and {@code to} (1 to 2 digits), or -1. */
  private static int argumentIndex(String pattern, int from, int to) {
    if (to == from || to - from > 2) {
      return -1;
    }
    int n = 0;
    for (int i = from; i < to; i++) {
      char c = pattern.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }
}
