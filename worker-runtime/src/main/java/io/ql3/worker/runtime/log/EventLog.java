package io.ql3.worker.runtime.log;

import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * One line per event, to stdout for journald: {@code logfmt} ({@code ts=… level=info
 * event=session.state from=ACTIVE to=DRAINING}) or one JSON object per line. Values are
 * passed explicitly by the caller, so nothing reaches a line unless it was meant to: credentials
 * never are (only fingerprints, serials and expiry dates of certificates).
 *
 * <p>Thread-safe: a line is formatted first and written with one {@code println}.
 */
public final class EventLog {
  /** Severity of an event. */
  public enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR;

    String text() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final PrintStream out;
  private final LogFormat format;
  private final Clock clock;

  public EventLog(PrintStream out, LogFormat format, Clock clock) {
    this.out = Objects.requireNonNull(out);
    this.format = Objects.requireNonNull(format);
    this.clock = Objects.requireNonNull(clock);
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
    out.println(format(level, event, keyValues));
  }

  String format(Level level, String event, Object... kv) {
    StringBuilder b = new StringBuilder(96);
    String ts = Instant.now(clock).toString();
    if (format == LogFormat.JSON) {
      b.append("{\"ts\":");
      json(b, ts);
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
          json(b, String.valueOf(v));
        }
      }
      return b.append('}').toString();
    }
    b.append("ts=").append(ts).append(" level=").append(level.text()).append(" event=");
    logfmt(b, event);
    for (int i = 0; i < kv.length; i += 2) {
      b.append(' ').append(kv[i]).append('=');
      logfmt(b, kv[i + 1] == null ? "" : String.valueOf(kv[i + 1]));
    }
    return b.toString();
  }

  private static void logfmt(StringBuilder b, String v) {
    boolean quote = v.isEmpty();
    for (int i = 0; i < v.length() && !quote; i++) {
      char c = v.charAt(i);
      quote = c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f;
    }
    if (!quote) {
      b.append(v);
      return;
    }
    b.append('"');
    escape(b, v);
    b.append('"');
  }

  private static void json(StringBuilder b, String v) {
    b.append('"');
    escape(b, v);
    b.append('"');
  }

  /** JSON string escaping (also used inside logfmt quotes), so a line never breaks. */
  private static void escape(StringBuilder b, String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
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
