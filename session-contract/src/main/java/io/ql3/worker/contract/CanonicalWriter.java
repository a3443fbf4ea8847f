package io.ql3.worker.contract;

import java.util.Arrays;

/**
 * Appends canonical JSON (contract section 3) to a growable byte array. Callers write object
 * members in canonical order themselves (wire records know their sorted member names); {@link
 * CanonicalJson} sorts generic objects.
 */
final class CanonicalWriter {
  private static final byte[] HEX =
      "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private byte[] buf;
  private int len;

  CanonicalWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  int length() {
    return len;
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }

  CanonicalWriter raw(char c) {
    ensure(1);
    buf[len++] = (byte) c;
    return this;
  }

  /** Writes ASCII text verbatim (punctuation and member names known to need no escaping). */
  CanonicalWriter ascii(String s) {
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    ensure(cs.length);
    for (char c : cs) {
      buf[len++] = (byte) c;
    }
    return this;
  }

  CanonicalWriter number(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative integer " + v);
    }
    if (v < 10) {
      return raw((char) ('0' + v));
    }
    ensure(20);
    int start = len;
    while (v > 0) {
      buf[len++] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    for (int i = start, j = len - 1; i < j; i++, j--) {
      byte t = buf[i];
      buf[i] = buf[j];
      buf[j] = t;
    }
    return this;
  }

  CanonicalWriter bool(boolean v) {
    return ascii(v ? "true" : "false");
  }

  CanonicalWriter nul() {
    return ascii("null");
  }

  /** Writes a quoted, minimally escaped string; lone surrogates are a programming error. */
  CanonicalWriter string(String s) {
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    int n = cs.length;
    ensure(n + 2);
    buf[len++] = '"';
    for (int i = 0; i < n; i++) {
      char c = cs[i];
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
        ensure(1);
        buf[len++] = (byte) c;
      } else if (c < 0x80) {
        escapeAscii(c);
      } else if (c < 0x800) {
        ensure(2);
        buf[len++] = (byte) (0xC0 | (c >> 6));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1])) {
          int cp = Character.toCodePoint(c, cs[++i]);
          ensure(4);
          buf[len++] = (byte) (0xF0 | (cp >> 18));
          buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          buf[len++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          throw new InvalidWireValueException(
              ViolationReason.LONE_SURROGATE, "", "string holds a lone surrogate at index " + i);
        }
      } else {
        ensure(3);
        buf[len++] = (byte) (0xE0 | (c >> 12));
        buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    ensure(1);
    buf[len++] = '"';
    return this;
  }

  private void escapeAscii(char c) {
    ensure(6);
    buf[len++] = '\\';
    switch (c) {
      case '"':
        buf[len++] = '"';
        return;
      case '\\':
        buf[len++] = '\\';
        return;
      case '\b':
        buf[len++] = 'b';
        return;
      case '\f':
        buf[len++] = 'f';
        return;
      case '\n':
        buf[len++] = 'n';
        return;
      case '\r':
        buf[len++] = 'r';
        return;
      case '\t':
        buf[len++] = 't';
        return;
      default:
        buf[len++] = 'u';
        buf[len++] = '0';
        buf[len++] = '0';
        buf[len++] = HEX[(c >> 4) & 0xF];
        buf[len++] = HEX[c & 0xF];
    }
  }

  /** Canonical escaped length in bytes of {@code s} as a JSON string, quotes excluded. */
  static int escapedLength(String s) {
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    int n = 0;
    for (int i = 0, len = cs.length; i < len; i++) {
      char c = cs[i];
      if (c < 0x80) {
        n += escapedAsciiLength(c);
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

  static int escapedAsciiLength(int c) {
    if (c >= 0x20) {
      return c == '"' || c == '\\' ? 2 : 1;
    }
    return c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 2 : 6;
  }

  /** Writes a generic value, sorting object members by UTF-16 code units. */
  CanonicalWriter value(JsonValue v) {
    if (v instanceof JsonValue.JsonObject o) {
      String[] keys = o.members().keySet().toArray(new String[0]);
      Arrays.sort(keys); // String.compareTo compares UTF-16 code units (RFC 8785 3.2.3)
      raw('{');
      for (int i = 0; i < keys.length; i++) {
        if (i > 0) {
          raw(',');
        }
        string(keys[i]).raw(':').value(o.members().get(keys[i]));
      }
      return raw('}');
    } else if (v instanceof JsonValue.JsonArray a) {
      raw('[');
      int i = 0;
      for (JsonValue e : a.elements()) {
        if (i++ > 0) {
          raw(',');
        }
        value(e);
      }
      return raw(']');
    } else if (v instanceof JsonValue.JsonString s) {
      return string(s.value());
    } else if (v instanceof JsonValue.JsonNumber n) {
      return number(n.value());
    } else if (v instanceof JsonValue.JsonBoolean bo) {
      return bool(bo.value());
    } else {
      return nul();
    }
  }
}
