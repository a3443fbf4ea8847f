package io.ql3.worker.contract;

import java.util.List;
import java.util.Map;

/**
 * A generic JSON value restricted to the contract's JSON rules (section 3): integers only
 * (0..2^53-1), strings of Unicode scalar values, objects without duplicate names. Produced by
 * {@link JsonReader}, written by {@link CanonicalJson}. Used for executor specs and vectors.
 */
public sealed interface JsonValue
    permits JsonValue.JsonObject,
        JsonValue.JsonArray,
        JsonValue.JsonString,
        JsonValue.JsonNumber,
        JsonValue.JsonBoolean,
        JsonValue.JsonNull {

  /** Largest integer allowed anywhere: 2^53-1. */
  long MAX_INTEGER = (1L << 53) - 1;

  /** JSON type name, for messages. */
  String typeName();

  /** An object; members are unordered (canonical output sorts them). */
  record JsonObject(Map<String, JsonValue> members) implements JsonValue {
    public JsonObject {
      // The reader hands over a map nobody else holds (FrozenMap); anything else is copied.
      members = members instanceof FrozenMap ? members : Map.copyOf(members);
    }

    public static final JsonObject EMPTY = new JsonObject(Map.of());

    @Override
    public String typeName() {
      return "object";
    }
  }

  record JsonArray(List<JsonValue> elements) implements JsonValue {
    public JsonArray {
      elements = List.copyOf(elements);
    }

    @Override
    public String typeName() {
      return "array";
    }
  }

  record JsonString(String value) implements JsonValue {
    public JsonString {
      java.util.Objects.requireNonNull(value, "value");
      Check.scalar(value, ""); // Unicode scalar values only: no lone surrogate
    }

    @Override
    public String typeName() {
      return "string";
    }
  }

  /** An integer in 0..2^53-1. */
  record JsonNumber(long value) implements JsonValue {
    public JsonNumber {
      if (value < 0 || value > MAX_INTEGER) {
        throw new InvalidWireValueException(
            ViolationReason.OUT_OF_RANGE, "", "integer outside 0..2^53-1");
      }
    }

    @Override
    public String typeName() {
      return "integer";
    }
  }

  record JsonBoolean(boolean value) implements JsonValue {
    public static final JsonBoolean TRUE = new JsonBoolean(true);
    public static final JsonBoolean FALSE = new JsonBoolean(false);

    public static JsonBoolean of(boolean value) {
      return value ? TRUE : FALSE;
    }

    @Override
    public String typeName() {
      return "boolean";
    }
  }

  enum JsonNull implements JsonValue {
    INSTANCE;

    @Override
    public String typeName() {
      return "null";
    }
  }
}
