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
  private int values;
  // The path to the value being read, for pointers in violations (built only on error).
  private final JsonPath path = new JsonPath();
  private final JsonStrings strings;

  private JsonReader(byte[] b, int off, int end) {
    this.b = b;
    this.pos = off;
    this.end = end;
    this.strings = new JsonStrings(b, end, path);
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
      path.leave();
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
      path.member(name);
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
    path.leave();
    return new JsonValue.JsonObject(new FrozenMap(members));
  }

  private JsonValue array() throws ContractViolation {
    enter();
    pos++; // '['
    skipWs();
    List<JsonValue> elements = new ArrayList<>();
    if (peek() == ']') {
      pos++;
      path.leave();
      return new JsonValue.JsonArray(elements);
    }
    while (true) {
      path.element(elements.size());
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
    path.leave();
    return new JsonValue.JsonArray(elements);
  }

  private void enter() throws ContractViolation {
    if (path.depth() >= MAX_DEPTH) {
      throw invalid("nesting deeper than " + MAX_DEPTH);
    }
    path.enter();
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
    return path.pointer();
  }

  /** Reads a string body after the opening quote. */
  private String string() throws ContractViolation {
    String s = strings.read(pos);
    pos = strings.next();
    return s;
  }
}
