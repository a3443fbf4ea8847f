package io.ql3.worker.contract;

import java.nio.charset.StandardCharsets;

/**
 * The string bodies of {@link JsonReader}: escapes, surrogate pairs (a lone surrogate is a {@link
 * ViolationReason#LONE_SURROGATE}) and multi-byte UTF-8, which the reader has already checked to be
 * valid. Short ASCII strings without escapes that are contract member names come back as the one
 * shared instance ({@link KnownNames}).
 */
final class JsonStrings {
  private final byte[] b;
  private final int end;
  private final JsonPath path;
  private int pos;
  private StringBuilder scratch;

  JsonStrings(byte[] b, int end, JsonPath path) {
    this.b = b;
    this.end = end;
    this.path = path;
  }

  /** The position after the closing quote of the string last read. */
  int next() {
    return pos;
  }

  /**
   * Reads a string body from {@code from}, just after its opening quote; {@link #next()} is then
   * the position after the closing quote.
   */
  String read(int from) throws ContractViolation {
    pos = from;
    int start = pos;
    // Fast path: printable ASCII without escapes.
    while (pos < end) {
      int c = b[pos];
      if (c == '"') {
        int len = pos - start;
        String s = len <= 40 ? KnownNames.lookup(b, start, len) : null;
        if (s == null) {
          s = new String(b, start, len, StandardCharsets.ISO_8859_1);
        }
        pos++;
        return s;
      }
      if (c == '\\' || c < 0x20) { // c < 0 (non-ASCII) included
        break;
      }
      pos++;
    }
    StringBuilder sb = scratch == null ? (scratch = new StringBuilder(64)) : scratch;
    sb.setLength(0);
    for (int i = start; i < pos; i++) {
      sb.append((char) b[i]);
    }
    while (true) {
      if (pos >= end) {
        throw invalid("unterminated string");
      }
      int c = b[pos];
      if (c == '"') {
        pos++;
        return sb.toString();
      }
      if (c == '\\') {
        pos++;
        escape(sb);
      } else if (c >= 0x20) {
        sb.append((char) c);
        pos++;
      } else if (c >= 0) {
        throw invalid("raw control character in a string");
      } else {
        int lead = c & 0xFF;
        int cp;
        if (lead < 0xE0) {
          cp = ((lead & 0x1F) << 6) | (b[pos + 1] & 0x3F);
          pos += 2;
        } else if (lead < 0xF0) {
          cp = ((lead & 0x0F) << 12) | ((b[pos + 1] & 0x3F) << 6) | (b[pos + 2] & 0x3F);
          pos += 3;
        } else {
          cp =
              ((lead & 0x07) << 18)
                  | ((b[pos + 1] & 0x3F) << 12)
                  | ((b[pos + 2] & 0x3F) << 6)
                  | (b[pos + 3] & 0x3F);
          pos += 4;
        }
        sb.appendCodePoint(cp);
      }
    }
  }

  private void escape(StringBuilder sb) throws ContractViolation {
    if (pos >= end) {
      throw invalid("unterminated escape");
    }
    int c = b[pos++];
    switch (c) {
      case '"':
        sb.append('"');
        return;
      case '\\':
        sb.append('\\');
        return;
      case '/':
        sb.append('/');
        return;
      case 'b':
        sb.append('\b');
        return;
      case 'f':
        sb.append('\f');
        return;
      case 'n':
        sb.append('\n');
        return;
      case 'r':
        sb.append('\r');
        return;
      case 't':
        sb.append('\t');
        return;
      case 'u':
        break;
      default:
        throw invalid("bad escape");
    }
    char u = hex4();
    if (Character.isHighSurrogate(u)) {
      if (end - pos >= 6 && b[pos] == '\\' && b[pos + 1] == 'u') {
        pos += 2;
        char low = hex4();
        if (Character.isLowSurrogate(low)) {
          sb.append(u).append(low);
          return;
        }
      }
      throw new ContractViolation(
          ViolationReason.LONE_SURROGATE, path.pointer(), "high surrogate without a low surrogate");
    }
    if (Character.isLowSurrogate(u)) {
      throw new ContractViolation(
          ViolationReason.LONE_SURROGATE, path.pointer(), "low surrogate without a high surrogate");
    }
    sb.append(u);
  }

  private char hex4() throws ContractViolation {
    if (end - pos < 4) {
      throw invalid("short \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int c = b[pos++];
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        throw invalid("bad hex digit in \\u escape");
      }
      v = (v << 4) | d;
    }
    return (char) v;
  }

  private ContractViolation invalid(String detail) {
    return new ContractViolation(ViolationReason.INVALID_JSON, path.pointer(), detail);
  }
}
