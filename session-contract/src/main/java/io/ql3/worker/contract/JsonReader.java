package io.ql3.worker.contract;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * Strict byte-level JSON reader for the contract's JSON rules (section 3).
 *
 * <p>Order of checks, each stopping the parse: leading BOM, invalid UTF-8 anywhere in the body,
 * then a single pass for syntax (invalid JSON, floats, integers outside 0..2^53-1, lone surrogates,
 * duplicate members after unescaping, nesting deeper than {@link #MAX_DEPTH}) and trailing garbage.
 * Caps are checked by the callers before this reader sees the bytes. Whitespace between tokens is
 * accepted (responses need not be canonical).
 */
public final class JsonReader {
  /** Deepest nesting of arrays/objects accepted; bounds recursion for any input. */
  public static final int MAX_DEPTH = 64;

  /**
   * Most JSON values (scalars, arrays and objects, each counted once) one body may hold. The
   * biggest legitimate answer (64 offers of the largest built-in spec: 256 argv strings and 128 env
   * members) has about 27,000; the budget bounds the tree built from a body within its cap (about
   * 40 bytes of heap per value) so that 1 MiB of {@code [0,0,...]} cannot exhaust an edge agent's
   * 16 MiB heap. Checked before each value is built.
   */
  public static final int MAX_VALUES = 65_536;

  private final byte[] b;
  private final int end;
  private int pos;
  private int depth;
  private int values;
  // The path to the value being read, for pointers in violations (built only on error).
  private String[] names = new String[8];
  private int[] indices = new int[8];
  private StringBuilder scratch;

  private JsonReader(byte[] b, int off, int end) {
    this.b = b;
    this.pos = off;
    this.end = end;
  }

  /** Parses a whole body. */
  public static JsonValue parse(byte[] body) throws ContractViolation {
    return parse(body, 0, body.length);
  }

  /** Parses {@code len} bytes of {@code body} from {@code off} as one JSON text. */
  public static JsonValue parse(byte[] body, int off, int len) throws ContractViolation {
    int end = off + len;
    if (len >= 3
        && (body[off] & 0xFF) == 0xEF
        && (body[off + 1] & 0xFF) == 0xBB
        && (body[off + 2] & 0xFF) == 0xBF) {
      throw new ContractViolation(
          ViolationReason.BOM, "", "body starts with a UTF-8 byte order mark");
    }
    int bad = Utf8.firstInvalid(body, off, end);
    if (bad >= 0) {
      throw new ContractViolation(
          ViolationReason.NOT_UTF8, "", "invalid UTF-8 at byte " + (bad - off));
    }
    JsonReader r = new JsonReader(body, off, end);
    r.skipWs();
    JsonValue v = r.value();
    r.skipWs();
    if (r.pos != end) {
      throw new ContractViolation(
          ViolationReason.TRAILING_GARBAGE,
          "",
          "unexpected byte after the JSON value at offset " + (r.pos - off));
    }
    return v;
  }

  private JsonValue value() throws ContractViolation {
    if (pos >= end) {
      throw invalid("unexpected end of input");
    }
    if (++values > MAX_VALUES) {
      throw new ContractViolation(
          ViolationReason.OVER_CAP,
          pointer(),
          "more than " + MAX_VALUES + " JSON values in one body");
    }
    int c = b[pos];
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        pos++;
        return new JsonValue.JsonString(string());
      case 't':
        literal("true");
        return JsonValue.JsonBoolean.TRUE;
      case 'f':
        literal("false");
        return JsonValue.JsonBoolean.FALSE;
      case 'n':
        literal("null");
        return JsonValue.JsonNull.INSTANCE;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return new JsonValue.JsonNumber(number());
        }
        throw invalid("unexpected character");
    }
  }

  private JsonValue object() throws ContractViolation {
    enter();
    pos++; // '{'
    skipWs();
    HashMap<String, JsonValue> members = new HashMap<>();
    if (peek() == '}') {
      pos++;
      depth--;
      return JsonValue.JsonObject.EMPTY;
    }
    while (true) {
      if (peek() != '"') {
        throw invalid("expected a member name");
      }
      pos++;
      String name = string();
      skipWs();
      if (peek() != ':') {
        throw invalid("expected ':'");
      }
      pos++;
      skipWs();
      names[depth] = name;
      indices[depth] = -1;
      JsonValue v = value();
      if (members.putIfAbsent(name, v) != null) {
        throw new ContractViolation(
            ViolationReason.DUPLICATE_MEMBER,
            pointer(),
            "member '" + name + "' appears more than once");
      }
      skipWs();
      int c = peek();
      if (c == ',') {
        pos++;
        skipWs();
      } else if (c == '}') {
        pos++;
        break;
      } else {
        throw invalid("expected ',' or '}'");
      }
    }
    depth--;
    return new JsonValue.JsonObject(new FrozenMap(members));
  }

  private JsonValue array() throws ContractViolation {
    enter();
    pos++; // '['
    skipWs();
    List<JsonValue> elements = new ArrayList<>();
    if (peek() == ']') {
      pos++;
      depth--;
      return new JsonValue.JsonArray(elements);
    }
    while (true) {
      names[depth] = null;
      indices[depth] = elements.size();
      elements.add(value());
      skipWs();
      int c = peek();
      if (c == ',') {
        pos++;
        skipWs();
      } else if (c == ']') {
        pos++;
        break;
      } else {
        throw invalid("expected ',' or ']'");
      }
    }
    depth--;
    return new JsonValue.JsonArray(elements);
  }

  private void enter() throws ContractViolation {
    if (depth >= MAX_DEPTH) {
      throw invalid("nesting deeper than " + MAX_DEPTH);
    }
    depth++;
    if (depth == names.length) {
      names = java.util.Arrays.copyOf(names, Math.min(names.length * 2, MAX_DEPTH + 1));
      indices = java.util.Arrays.copyOf(indices, names.length);
    }
    names[depth] = null;
    indices[depth] = -1;
  }

  private void literal(String word) throws ContractViolation {
    int n = word.length();
    if (end - pos < n) {
      throw invalid("bad literal");
    }
    for (int i = 0; i < n; i++) {
      if (b[pos + i] != word.charAt(i)) {
        throw invalid("bad literal");
      }
    }
    pos += n;
  }

  /** Reads a number; only integers 0..2^53-1 pass. */
  private long number() throws ContractViolation {
    int start = pos;
    boolean negative = false;
    if (b[pos] == '-') {
      negative = true;
      pos++;
    }
    int intStart = pos;
    while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
      pos++;
    }
    int intDigits = pos - intStart;
    if (intDigits == 0) {
      throw invalid("bad number");
    }
    if (intDigits > 1 && b[intStart] == '0') {
      throw invalid("leading zero");
    }
    boolean fractional = false;
    if (pos < end && b[pos] == '.') {
      pos++;
      int fs = pos;
      while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
        pos++;
      }
      if (pos == fs) {
        throw invalid("bad fraction");
      }
      fractional = true;
    }
    if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
      pos++;
      if (pos < end && (b[pos] == '+' || b[pos] == '-')) {
        pos++;
      }
      int es = pos;
      while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
        pos++;
      }
      if (pos == es) {
        throw invalid("bad exponent");
      }
      fractional = true;
    }
    if (fractional) {
      throw new ContractViolation(
          ViolationReason.FLOAT_NUMBER,
          pointer(),
          "number with a fraction or exponent: "
              + new String(b, start, pos - start, StandardCharsets.US_ASCII));
    }
    if (negative) {
      throw new ContractViolation(ViolationReason.OUT_OF_RANGE, pointer(), "negative integer");
    }
    if (intDigits > 16) {
      throw new ContractViolation(ViolationReason.OUT_OF_RANGE, pointer(), "integer above 2^53-1");
    }
    long v = 0;
    for (int i = intStart; i < pos; i++) {
      v = v * 10 + (b[i] - '0');
    }
    if (v > JsonValue.MAX_INTEGER) {
      throw new ContractViolation(ViolationReason.OUT_OF_RANGE, pointer(), "integer above 2^53-1");
    }
    return v;
  }

  /** Reads a string body after the opening quote. The input is known to be valid UTF-8. */
  private String string() throws ContractViolation {
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
          ViolationReason.LONE_SURROGATE, pointer(), "high surrogate without a low surrogate");
    }
    if (Character.isLowSurrogate(u)) {
      throw new ContractViolation(
          ViolationReason.LONE_SURROGATE, pointer(), "low surrogate without a high surrogate");
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

  private int peek() {
    return pos < end ? b[pos] : -1;
  }

  private void skipWs() {
    while (pos < end) {
      int c = b[pos];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        pos++;
      } else {
        return;
      }
    }
  }

  private ContractViolation invalid(String detail) {
    return new ContractViolation(ViolationReason.INVALID_JSON, pointer(), detail);
  }

  private String pointer() {
    if (depth == 0) {
      return "";
    }
    StringBuilder p = new StringBuilder();
    for (int d = 1; d <= depth; d++) {
      if (names[d] == null && indices[d] < 0) {
        break;
      }
      p.append('/');
      if (names[d] != null) {
        p.append(names[d].replace("~", "~0").replace("/", "~1"));
      } else {
        p.append(indices[d]);
      }
    }
    return p.toString();
  }
}
