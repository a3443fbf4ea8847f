package io.ql3.worker.runtime.log;

import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One line per event, to stdout for journald: {@code logfmt} ({@code ts=… level=info
 * event=session.state from=ACTIVE to=DRAINING}) or one JSON object per line. Values are passed
 * explicitly by the caller, so nothing reaches a line unless it was meant to: credentials never are
 * (only fingerprints, serials and expiry dates of certificates).
 *
 * <p>Events below the configured {@link Level} are dropped. Under journald ({@code JOURNAL_STREAM}
 * names stdout) each line starts with its syslog priority ({@code <3>} error … {@code <7>} debug),
 * so {@code journalctl -p warning} works. A {@link Throwable} value is written with its stack
 * trace, escaped into the one field. The same warning or error (event and values) repeated within
 * {@link #REPEAT_WINDOW} is counted, not written: the next one written after the window carries
 * {@code repeated=N}.
 *
 * <p>Lines are UTF-8 whatever the JVM's default charset (journald and JSON readers expect UTF-8;
 * under a C locale the JDK 17 default would turn every non-ASCII character into {@code ?}).
 *
 * <p>Thread-safe: a line is formatted first and written with one {@code write} of its bytes.
 */
public final class EventLog {
  /** Severity of an event. */
  public enum Level {
    DEBUG(7),
    INFO(6),
    WARN(4),
    ERROR(3);

    /** The syslog(3) priority journald reads from a {@code <N>} prefix. */
    final int syslogPriority;

    Level(int syslogPriority) {
      this.syslogPriority = syslogPriority;
    }

    String text() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code debug}, {@code info}, {@code warn} or {@code error}. */
    public static Level fromText(String text) {
      for (Level l : values()) {
        if (l.text().equals(text)) {
          return l;
        }
      }
      throw new IllegalArgumentException(
          "must be \"debug\", \"info\", \"warn\" or \"error\" (got \"" + text + "\")");
    }
  }

  /** How long the same warning is counted instead of written again. */
  public static final Duration REPEAT_WINDOW = Duration.ofMinutes(1);

  /** Distinct repeated lines remembered (the oldest is forgotten first). */
  private static final int REPEATS_KEPT = 256;

  private static final String LINE_END = System.lineSeparator();
  private final PrintStream out;
  private final LogFormat format;
  private final Clock clock;
  private final Level threshold;
  private final boolean syslogPrefix;
  private final Map<String, Repeat> recent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Repeat> eldest) {
          return size() > REPEATS_KEPT;
        }
      };

  private static final class Repeat {
    final Instant writtenAt;
    int suppressed;

    Repeat(Instant writtenAt) {
      this.writtenAt = writtenAt;
    }
  }

  /** Every level from info, no priority prefix. */
  public EventLog(PrintStream out, LogFormat format, Clock clock) {
    this(out, format, clock, Level.INFO, false);
  }

  /**
   * @param threshold the lowest level written
   * @param syslogPrefix start each line with {@code <N>} (stdout is journald's stream)
   */
  public EventLog(
      PrintStream out, LogFormat format, Clock clock, Level threshold, boolean syslogPrefix) {
    this.out = Objects.requireNonNull(out);
    this.format = Objects.requireNonNull(format);
    this.clock = Objects.requireNonNull(clock);
    this.threshold = Objects.requireNonNull(threshold);
    this.syslogPrefix = syslogPrefix;
  }

  /** True when events of {@code level} are written. */
  public boolean enabled(Level level) {
    return level.compareTo(threshold) >= 0;
  }

  public void debug(String event, Object... keyValues) {
    log(Level.DEBUG, event, keyValues);
  }

  public void info(String event, Object... keyValues) {
    log(Level.INFO, event, keyValues);
  }

  public void warn(String event, Object... keyValues) {
    log(Level.WARN, event, keyValues);
  }

  public void error(String event, Object... keyValues) {
    log(Level.ERROR, event, keyValues);
  }

  /** Writes one line: {@code keyValues} alternate names and values (a value may be null). */
  public void log(Level level, String event, Object... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("keyValues must alternate names and values");
    }
    if (!enabled(level)) {
      return;
    }
    Object[] kv = keyValues;
    if (level.compareTo(Level.WARN) >= 0) {
      int repeated = repeats(level, event, keyValues);
      if (repeated < 0) {
        return;
      }
      if (repeated > 0) {
        kv = java.util.Arrays.copyOf(keyValues, keyValues.length + 2);
        kv[keyValues.length] = "repeated";
        kv[keyValues.length + 1] = repeated;
      }
    }
    String line = format(level, event, kv);
    // One write per line (println writes the text and the line separator apart: two write calls
    // with System.out's autoflush and small buffer), of the bytes encoded here: PrintStream's own
    // character encoder is a loop per character under the edge agent's interpreter
    // (docs/perf/edge.md, "Sixteenth pass").
    byte[] bytes =
        ((syslogPrefix ? "<" + level.syslogPriority + ">" + line : line) + LINE_END)
            .getBytes(StandardCharsets.UTF_8);
    out.write(bytes, 0, bytes.length);
  }

  /**
   * -1: the same line was written less than {@link #REPEAT_WINDOW} ago (counted, not written);
   * otherwise how many were counted since the last one written.
   */
  private synchronized int repeats(Level level, String event, Object[] kv) {
    String key = level + " " + event + " " + java.util.Arrays.deepToString(kv);
    Instant now = clock.instant();
    Repeat r = recent.get(key);
    if (r != null && now.isBefore(r.writtenAt.plus(REPEAT_WINDOW))) {
      r.suppressed++;
      return -1;
    }
    recent.put(key, new Repeat(now));
    return r == null ? 0 : r.suppressed;
  }

  String format(Level level, String event, Object... kv) {
    StringBuilder b = new StringBuilder(160);
    Instant now = clock.instant();
    if (format == LogFormat.JSON) {
      b.append("{\"ts\":\"");
      LogTimestamp.append(b, now); // nothing in it to escape
      b.append('"');
      b.append(",\"level\":\"").append(level.text()).append("\",\"event\":");
      json(b, event);
      for (int i = 0; i < kv.length; i += 2) {
        b.append(',');
        json(b, String.valueOf(kv[i]));
        b.append(':');
        Object v = kv[i + 1];
        if (v == null) {
          b.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
          b.append(v);
        } else {
          json(b, text(v));
        }
      }
      return b.append('}').toString();
    }
    b.append("ts=");
    LogTimestamp.append(b, now);
    b.append(" level=").append(level.text()).append(" event=");
    logfmt(b, event);
    for (int i = 0; i < kv.length; i += 2) {
      b.append(' ').append(kv[i]).append('=');
      logfmt(b, kv[i + 1] == null ? "" : text(kv[i + 1]));
    }
    return b.toString();
  }

  /** A value as text; a throwable with its whole stack trace (escaped later into one field). */
  private static String text(Object v) {
    if (v instanceof Throwable t) {
      java.io.StringWriter w = new java.io.StringWriter();
      t.printStackTrace(new java.io.PrintWriter(w));
      return w.toString().stripTrailing();
    }
    return String.valueOf(v);
  }

  private static void logfmt(StringBuilder b, String v) {
    boolean quote = v.isEmpty();
    char[] cs = v.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    for (int i = 0; i < cs.length && !quote; i++) {
      char c = cs[i];
      quote = c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f;
    }
    if (!quote) {
      b.append(v);
      return;
    }
    b.append('"');
    escape(b, cs);
    b.append('"');
  }

  private static void json(StringBuilder b, String v) {
    b.append('"');
    escape(b, v.toCharArray()); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    b.append('"');
  }

  /** JSON string escaping (also used inside logfmt quotes), so a line never breaks. */
  private static void escape(StringBuilder b, char[] v) {
    for (char c : v) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
  }
}
