package io.ql3.worker.contract;

import java.util.List;
import java.util.Map;

/**
 * Reads the members of one closed JSON object for a wire record's parser. Violations carry absolute
 * pointers. Unknown members are refused when the view is created.
 */
final class Obj {
  private final Map<String, JsonValue> members;
  final String ptr;

  private Obj(Map<String, JsonValue> members, String ptr) {
    this.members = members;
    this.ptr = ptr;
  }

  /** Parses a whole body: cap first, then JSON, then the top-level object with its member names. */
  static Obj body(byte[] body, int cap, String... names) throws ContractViolation {
    checkCap(body, cap);
    return of(JsonReader.parse(body), "", names);
  }

  static void checkCap(byte[] body, int cap) throws ContractViolation {
    if (body.length > cap) {
      throw new ContractViolation(
          ViolationReason.OVER_CAP, "", "body of more than " + cap + " bytes");
    }
  }

  static Obj of(JsonValue v, String ptr, String... names) throws ContractViolation {
    if (v == JsonValue.JsonNull.INSTANCE) {
      throw new ContractViolation(
          ViolationReason.NULL_NOT_ALLOWED, ptr, "object expected, found null");
    }
    if (!(v instanceof JsonValue.JsonObject o)) {
      throw new ContractViolation(
          ViolationReason.WRONG_TYPE, ptr, "object expected, found " + v.typeName());
    }
    Map<String, JsonValue> m = o.members();
    if (m.size() > names.length || !allKnown(m, names)) {
      for (String k : m.keySet()) {
        if (!contains(names, k)) {
          throw new ContractViolation(
              ViolationReason.UNKNOWN_MEMBER, ptr + "/" + escape(k), "unknown member '" + k + "'");
        }
      }
    }
    return new Obj(m, ptr);
  }

  private static boolean allKnown(Map<String, JsonValue> m, String[] names) {
    int found = 0;
    for (String n : names) {
      if (m.containsKey(n)) {
        found++;
      }
    }
    return found == m.size();
  }

  private static boolean contains(String[] names, String k) {
    for (String n : names) {
      if (n.equals(k)) {
        return true;
      }
    }
    return false;
  }

  static String escape(String name) {
    return name.indexOf('~') < 0 && name.indexOf('/') < 0
        ? name
        : name.replace("~", "~0").replace("/", "~1");
  }

  String at(String name) {
    return ptr + "/" + escape(name);
  }

  /** The member's value; absent is MISSING_MEMBER (nullable is not optional). */
  JsonValue get(String name) throws ContractViolation {
    JsonValue v = members.get(name);
    if (v == null) {
      throw new ContractViolation(
          ViolationReason.MISSING_MEMBER, at(name), "member '" + name + "' is missing");
    }
    return v;
  }

  private JsonValue nonNull(String name) throws ContractViolation {
    JsonValue v = get(name);
    if (v == JsonValue.JsonNull.INSTANCE) {
      throw new ContractViolation(
          ViolationReason.NULL_NOT_ALLOWED, at(name), "member '" + name + "' is null");
    }
    return v;
  }

  boolean isNull(String name) throws ContractViolation {
    return get(name) == JsonValue.JsonNull.INSTANCE;
  }

  private ContractViolation wrongType(String name, String expected, JsonValue v) {
    return new ContractViolation(
        ViolationReason.WRONG_TYPE, at(name), expected + " expected, found " + v.typeName());
  }

  long integer(String name) throws ContractViolation {
    JsonValue v = nonNull(name);
    if (v instanceof JsonValue.JsonNumber n) {
      return n.value();
    }
    throw wrongType(name, "integer", v);
  }

  /** An integer that must lie in {@code min..max}. */
  long integer(String name, long min, long max) throws ContractViolation {
    long v = integer(name);
    if (v < min || v > max) {
      throw new ContractViolation(
          ViolationReason.OUT_OF_RANGE, at(name), v + " outside " + min + ".." + max);
    }
    return v;
  }

  /** A nullable integer: null when the member is JSON null. */
  Long nullableInteger(String name) throws ContractViolation {
    return isNull(name) ? null : integer(name);
  }

  String string(String name) throws ContractViolation {
    JsonValue v = nonNull(name);
    if (v instanceof JsonValue.JsonString s) {
      return s.value();
    }
    throw wrongType(name, "string", v);
  }

  String nullableString(String name) throws ContractViolation {
    return isNull(name) ? null : string(name);
  }

  boolean bool(String name) throws ContractViolation {
    JsonValue v = nonNull(name);
    if (v instanceof JsonValue.JsonBoolean b) {
      return b.value();
    }
    throw wrongType(name, "boolean", v);
  }

  Obj object(String name, String... names) throws ContractViolation {
    return of(nonNull(name), at(name), names);
  }

  /** An object member whose member names are free (labels, env). */
  Obj openObject(String name) throws ContractViolation {
    JsonValue.JsonObject o = rawObject(name);
    return new Obj(o.members(), at(name));
  }

  /** Null when the member is JSON null. */
  Obj nullableObject(String name, String... names) throws ContractViolation {
    return isNull(name) ? null : object(name, names);
  }

  JsonValue.JsonObject rawObject(String name) throws ContractViolation {
    JsonValue v = nonNull(name);
    if (v instanceof JsonValue.JsonObject o) {
      return o;
    }
    throw wrongType(name, "object", v);
  }

  List<JsonValue> array(String name) throws ContractViolation {
    JsonValue v = nonNull(name);
    if (v instanceof JsonValue.JsonArray a) {
      return a.elements();
    }
    throw wrongType(name, "array", v);
  }

  Map<String, JsonValue> members() {
    return members;
  }

  /** The {@code schema} member must equal {@code expected}. */
  void schema(String expected) throws ContractViolation {
    String s = string("schema");
    if (!s.equals(expected)) {
      throw new ContractViolation(
          ViolationReason.SCHEMA_MISMATCH,
          at("schema"),
          "schema " + Check.quote(s) + ", expected " + expected);
    }
  }

  /** A wire enum member: unknown spellings are OUT_OF_RANGE. */
  <E extends Enum<E> & WireEnum> E enumValue(String name, Class<E> type) throws ContractViolation {
    String s = string(name);
    for (E e : type.getEnumConstants()) {
      if (e.wire().equals(s)) {
        return e;
      }
    }
    throw new ContractViolation(
        ViolationReason.OUT_OF_RANGE, at(name), "unknown value " + Check.quote(s));
  }

  /** String element of an array. */
  static String stringElement(JsonValue v, String ptr) throws ContractViolation {
    if (v instanceof JsonValue.JsonString s) {
      return s.value();
    }
    if (v == JsonValue.JsonNull.INSTANCE) {
      throw new ContractViolation(
          ViolationReason.NULL_NOT_ALLOWED, ptr, "string expected, found null");
    }
    throw new ContractViolation(
        ViolationReason.WRONG_TYPE, ptr, "string expected, found " + v.typeName());
  }

  /** Refuses a non-canonical request body (servers only accept canonical bytes). */
  static void requireCanonical(byte[] body, byte[] canonical) throws ContractViolation {
    if (!java.util.Arrays.equals(body, canonical)) {
      throw new ContractViolation(
          ViolationReason.NOT_CANONICAL, "", "request body is not in canonical form");
    }
  }

  /**
   * Narrows a parsed integer for int components; values past int range stay out of every int range.
   */
  static int clamp(long v) {
    return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) v;
  }
}
