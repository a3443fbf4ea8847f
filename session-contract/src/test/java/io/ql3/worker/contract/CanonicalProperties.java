package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Canonicalization against an independent, deliberately messy writer: random whitespace, member
 * order and escape spellings of the same value always canonicalize to the same bytes, and the
 * canonical bytes read back as the same value.
 */
class CanonicalProperties {

  @Property(tries = 200)
  void anySpellingCanonicalizesToTheSameBytes(@ForAll("values") JsonValue v, @ForAll long seed)
      throws Exception {
    byte[] canonical = CanonicalJson.toBytes(v);
    String messy = new MessyWriter(new Random(seed)).write(v);
    assertThat(CanonicalJson.canonicalize(messy.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(canonical);
    assertThat(JsonReader.parse(canonical)).isEqualTo(v);
    assertThat(CanonicalJson.canonicalize(canonical)).isEqualTo(canonical);
  }

  @Provide
  Arbitrary<JsonValue> values() {
    return value(4);
  }

  private static Arbitrary<JsonValue> value(int depth) {
    Arbitrary<JsonValue> leaf =
        Arbitraries.oneOf(
            Gen.integer().map(JsonValue.JsonNumber::new),
            Gen.text(12).map(JsonValue.JsonString::new),
            Arbitraries.of(
                JsonValue.JsonBoolean.TRUE,
                JsonValue.JsonBoolean.FALSE,
                JsonValue.JsonNull.INSTANCE));
    if (depth == 0) {
      return leaf;
    }
    Arbitrary<JsonValue> array = value(depth - 1).list().ofMaxSize(4).map(JsonValue.JsonArray::new);
    Arbitrary<JsonValue> object =
        Arbitraries.maps(Gen.text(6), value(depth - 1)).ofMaxSize(5).map(JsonValue.JsonObject::new);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, leaf),
        net.jqwik.api.Tuple.of(1, array),
        net.jqwik.api.Tuple.of(2, object));
  }

  /** Valid but non-canonical JSON: random whitespace, member order and escapes. */
  static final class MessyWriter {
    private final Random rnd;
    private final StringBuilder out = new StringBuilder();

    MessyWriter(Random rnd) {
      this.rnd = rnd;
    }

    String write(JsonValue v) {
      ws();
      value(v);
      ws();
      return out.toString();
    }

    private void ws() {
      String[] w = {"", "", " ", "\n", "\t", "\r\n  "};
      out.append(w[rnd.nextInt(w.length)]);
    }

    private void value(JsonValue v) {
      if (v instanceof JsonValue.JsonObject o) {
        List<Map.Entry<String, JsonValue>> members =
            new ArrayList<>(new LinkedHashMap<>(o.members()).entrySet());
        Collections.shuffle(members, rnd);
        out.append('{');
        ws();
        for (int i = 0; i < members.size(); i++) {
          if (i > 0) {
            out.append(',');
            ws();
          }
          string(members.get(i).getKey());
          ws();
          out.append(':');
          ws();
          value(members.get(i).getValue());
          ws();
        }
        out.append('}');
      } else if (v instanceof JsonValue.JsonArray a) {
        out.append('[');
        ws();
        for (int i = 0; i < a.elements().size(); i++) {
          if (i > 0) {
            out.append(',');
            ws();
          }
          value(a.elements().get(i));
          ws();
        }
        out.append(']');
      } else if (v instanceof JsonValue.JsonString s) {
        string(s.value());
      } else if (v instanceof JsonValue.JsonNumber n) {
        out.append(n.value());
      } else if (v instanceof JsonValue.JsonBoolean b) {
        out.append(b.value());
      } else {
        out.append("null");
      }
    }

    private void string(String s) {
      out.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) { // a surrogate pair: two escapes, or literal
          char low = s.charAt(++i);
          if (rnd.nextBoolean()) {
            out.append(String.format("\\u%04x\\u%04X", (int) c, (int) low));
          } else {
            out.append(c).append(low);
          }
          continue;
        }
        boolean mustEscape = c < 0x20 || c == '"' || c == '\\';
        if (mustEscape || rnd.nextInt(4) == 0) {
          int form = rnd.nextInt(3);
          if (form == 0 && c == '/') {
            out.append("\\/");
          } else if (form == 1 && "\"\\\b\f\n\r\t".indexOf(c) >= 0) {
            out.append('\\').append("\"\\bfnrt".charAt("\"\\\b\f\n\r\t".indexOf(c)));
          } else {
            String hex = String.format("%04x", (int) c);
            out.append("\\u")
                .append(rnd.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
          }
        } else {
          out.append(c);
        }
      }
      out.append('"');
    }
  }
}
