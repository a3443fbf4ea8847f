package io.ql3.worker.cli.toml;

import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Jackson's TOML parser as a test oracle, with its tree normalized to {@link TomlParser}'s shape.
 *
 * <p>How Jackson 2.23 represents a TOML document read as a {@code Map}: tables are {@code
 * LinkedHashMap}s in document order, arrays {@code ArrayList}s; integers are the smallest of {@code
 * Integer}, {@code Long}, {@code BigInteger} that holds the value (it reads {@code
 * 0x7FFFFFFFFFFFFFFF} as a {@code BigInteger} and accepts values beyond the long range); finite
 * floats are {@code BigDecimal}s (so {@code -0.0} loses its sign), {@code inf}/{@code nan} are
 * {@code Double}s; date-times are {@code String}s of the text, except that a space between date and
 * time becomes {@code T} (and it refuses the lowercase {@code t}/{@code z} the spec allows).
 *
 * <p>{@link #normalize} maps all integral numbers that fit to {@code Long} (a {@code BigInteger}
 * outside the long range stays one, so it can never equal our parser's tree) and all floats to
 * {@code Double}.
 */
final class JacksonOracle {
  private static final TomlMapper MAPPER = new TomlMapper();

  private JacksonOracle() {}

  /** Jackson's reading of {@code text}, normalized; throws whatever Jackson throws. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> parse(String text) throws Exception {
    return (Map<String, Object>) normalize(MAPPER.readValue(text, Map.class));
  }

  /** Whether Jackson refuses {@code text}. */
  static boolean rejects(String text) {
    try {
      parse(text);
      return false;
    } catch (Exception e) {
      return true;
    }
  }

  static Object normalize(Object v) {
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put((String) k, normalize(x)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(x -> out.add(normalize(x)));
      return out;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }
    if (v instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    return v;
  }

  /**
   * A deterministic rendering of a tree that shows key order and value types ({@code L1}, {@code
   * D1.5}, {@code S"x"}, {@code Btrue}), for order-sensitive comparisons with readable diffs.
   */
  static String show(Object v) {
    StringBuilder sb = new StringBuilder();
    show(v, sb);
    return sb.toString();
  }

  private static void show(Object v, StringBuilder sb) {
    if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        quote(String.valueOf(e.getKey()), sb);
        sb.append('=');
        show(e.getValue(), sb);
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        show(l.get(i), sb);
      }
      sb.append(']');
    } else if (v instanceof String s) {
      sb.append('S');
      quote(s, sb);
    } else if (v == null) {
      sb.append("null");
    } else {
      sb.append(v.getClass().getSimpleName().charAt(0)).append(v);
      if (!(v instanceof Long || v instanceof Double || v instanceof Boolean)) {
        sb.append('<').append(v.getClass().getName()).append('>');
      }
    }
  }

  private static void quote(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || Character.isSurrogate(c)) {
        sb.append(String.format("\\u%04X", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
