package io.ql3.worker.cli.toml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Differential properties: random trees (tables, arrays of tables, arrays, every scalar kind) are
 * rendered as TOML text with randomly chosen but equivalent notations (headers, dotted keys, inline
 * tables, quoted keys, the four string forms with escapes and line-ending backslashes, hex, octal
 * and binary integers, underscores, exponents, comments, blank lines, CRLF), and {@link TomlParser}
 * must read the text as Jackson does, which must also be the tree that was rendered.
 *
 * <p>Left out because Jackson reads them differently from the spec or from our API: date-times
 * (tested by example), {@code -0.0} (Jackson loses the sign), CRLF inside multi-line strings (the
 * spec lets a parser normalize it).
 */
class TomlParserProperties {

  @Property
  void generatedDocumentsReadAsJacksonReadsThem(
      @ForAll("documents") Map<String, Object> model, @ForAll long seed) throws Exception {
    String text = new Renderer(new Random(seed)).document(model);
    assertSameAsJacksonAndModel(text, model);
  }

  @Property(tries = 300)
  void scalarsInEveryNotationReadAsJacksonReadsThem(
      @ForAll("scalarRows") List<Object> values, @ForAll long seed) throws Exception {
    Map<String, Object> model = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      model.put("k" + i, values.get(i));
    }
    String text = new Renderer(new Random(seed)).document(model);
    assertSameAsJacksonAndModel(text, model);
  }

  /**
   * Any document is a tree or a {@link TomlSyntaxException}, never another exception: valid
   * documents with characters inserted, deleted or repeated where the grammar is most sensitive.
   */
  @Property(tries = 2000)
  void mutatedDocumentsAreReadOrRefusedWithASyntaxErrorOnly(
      @ForAll("documents") Map<String, Object> model,
      @ForAll long seed,
      @ForAll("mutations") List<Tuple.Tuple3<Integer, Integer, Character>> mutations) {
    StringBuilder text = new StringBuilder(new Renderer(new Random(seed)).document(model));
    for (Tuple.Tuple3<Integer, Integer, Character> m : mutations) {
      if (text.length() == 0) {
        break;
      }
      int at = Math.floorMod(m.get2(), text.length());
      switch (m.get1()) {
        case 0 -> text.insert(at, m.get3().charValue());
        case 1 -> text.deleteCharAt(at);
        default -> text.insert(at, text.charAt(at));
      }
    }
    try {
      TomlParser.parse(text.toString());
    } catch (TomlSyntaxException e) {
      assertThat(e.line()).isPositive();
      assertThat(e.column()).isPositive();
    }
  }

  @Provide
  Arbitrary<List<Tuple.Tuple3<Integer, Integer, Character>>> mutations() {
    Arbitrary<Character> sensitive =
        Arbitraries.of(
            '"', '\'', '\\', '[', ']', '{', '}', '=', ',', '.', '#', '\r', '\n', '_', '+', '-', ':',
            'e', 'E', 'x', 'o', 'b', '0', '9', 't', 'Z', ' ', '\t', '\u0000', '\u00e9', '\ud83d');
    return Combinators.combine(
            Arbitraries.integers().between(0, 2), Arbitraries.integers(), sensitive)
        .as(Tuple::of)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  private static void assertSameAsJacksonAndModel(String text, Map<String, Object> model)
      throws Exception {
    Map<String, Object> theirs = JacksonOracle.parse(text);
    // The generator's own check: the rendered text means the model (to Jackson).
    assertThat(theirs).as("Jackson's reading vs the model, for:%n%s", text).isEqualTo(model);
    Map<String, Object> ours;
    try {
      ours = TomlParser.parse(text);
    } catch (TomlSyntaxException e) {
      ours = fail("TomlParser refused a valid document (%s):%n%s", e.getMessage(), text);
    }
    assertThat(JacksonOracle.show(ours))
        .as("TomlParser's reading vs Jackson's (order and types included), for:%n%s", text)
        .isEqualTo(JacksonOracle.show(theirs));
    assertThat(ours).isEqualTo(model);
  }

  // ---------------------------------------------------------------- the model

  private static final int DEPTH = 3;

  @Provide
  Arbitrary<Map<String, Object>> documents() {
    return table(DEPTH, 6);
  }

  @Provide
  Arbitrary<List<Object>> scalarRows() {
    return scalar().list().ofMinSize(1).ofMaxSize(12).map(l -> new ArrayList<Object>(l));
  }

  private static Arbitrary<Map<String, Object>> table(int depth, int maxSize) {
    return Arbitraries.maps(keys(), value(depth))
        .ofMaxSize(maxSize)
        .map(m -> (Map<String, Object>) new LinkedHashMap<String, Object>(m));
  }

  private static Arbitrary<Object> value(int depth) {
    if (depth == 0) {
      return scalar();
    }
    return Arbitraries.frequencyOf(
        Tuple.of(6, scalar()),
        Tuple.of(2, Arbitraries.lazy(() -> array(depth - 1))),
        Tuple.of(3, Arbitraries.lazy(() -> table(depth - 1, 4)).map(m -> (Object) m)),
        Tuple.of(
            2,
            Arbitraries.lazy(() -> table(depth - 1, 3))
                .list()
                .ofMinSize(1)
                .ofMaxSize(3)
                .map(l -> (Object) new ArrayList<Object>(l))));
  }

  private static Arbitrary<Object> array(int depth) {
    return value(depth).list().ofMaxSize(4).map(l -> (Object) new ArrayList<Object>(l));
  }

  private static Arbitrary<Object> scalar() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, text().map(s -> (Object) s)),
        Tuple.of(3, longs().map(l -> (Object) l)),
        Tuple.of(3, doubles().map(d -> (Object) d)),
        Tuple.of(1, Arbitraries.of(true, false).map(b -> (Object) b)));
  }

  private static Arbitrary<Long> longs() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.longs()),
        Tuple.of(2, Arbitraries.longs().between(-1000, 1000)),
        Tuple.of(1, Arbitraries.of(0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE)));
  }

  private static final long NEGATIVE_ZERO_BITS = Double.doubleToRawLongBits(-0.0);

  private static Arbitrary<Double> doubles() {
    return Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.longs().map(Double::longBitsToDouble)),
            Tuple.of(2, Arbitraries.doubles()),
            Tuple.of(
                2,
                Arbitraries.of(
                    0.0,
                    0.5,
                    1.0,
                    -2.5,
                    3.14,
                    1e6,
                    1.5e-10,
                    1.1e-100,
                    1e22,
                    Double.MAX_VALUE,
                    Double.MIN_VALUE,
                    Double.MIN_NORMAL,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    Double.NaN)))
        .filter(d -> Double.doubleToRawLongBits(d) != NEGATIVE_ZERO_BITS);
  }

  /** Pieces of text that exercise escaping: quotes, backslashes, controls, non-ASCII, newlines. */
  private static final List<String> ATOMS =
      List.of(
          "a", "Z", "key", "7", " ", "\t", "\n", "\r", "\"", "'", "\\", "#", "=", ".", "[", "]",
          "{", "}", ",", "é", "日本", "😀", "\u0000", "\u0001", "\u0008", "\u000C", "\u001B",
          "\u001F", "\u007F", "\u0085", "\u00A0", "\u2028", "\uFEFF", "\uFFFD", "\\u0041", "\"\"\"",
          "'''", "${x}");

  private static Arbitrary<String> text() {
    return Arbitraries.of(ATOMS).list().ofMaxSize(10).map(l -> String.join("", l));
  }

  private static Arbitrary<String> keys() {
    return Arbitraries.frequencyOf(
        Tuple.of(
            5, Arbitraries.strings().withChars("abcxyzABXYZ0189_-").ofMinLength(1).ofMaxLength(6)),
        Tuple.of(1, Arbitraries.of("true", "false", "inf", "nan", "1", "123", "-", "_", "0x1")),
        Tuple.of(2, Arbitraries.of(ATOMS).list().ofMaxSize(4).map(l -> String.join("", l))));
  }

  // ---------------------------------------------------------------- the renderer

  /** Writes a tree as TOML, choosing among equivalent notations with its random source. */
  static final class Renderer {
    private final Random random;
    private final String newline;
    private final StringBuilder out = new StringBuilder();

    Renderer(Random random) {
      this.random = random;
      this.newline = random.nextInt(4) == 0 ? "\r\n" : "\n";
    }

    private boolean chance(int percent) {
      return random.nextInt(100) < percent;
    }

    private <T> T pick(List<T> options) {
      return options.get(random.nextInt(options.size()));
    }

    /** The document's newline, now and then the other one (mixing them is allowed). */
    private String nl() {
      return chance(10) ? ("\n".equals(newline) ? "\r\n" : "\n") : newline;
    }

    private String ws() {
      return pick(List.of("", "", " ", " ", "\t", "  ", " \t "));
    }

    private String comment() {
      StringBuilder c = new StringBuilder("#");
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        c.append(
            pick(List.of(" ", "\t", "x", "#", "\"", "'", "é", "😀", "=", "[a]", "\\", "\u00A0")));
      }
      return c.toString();
    }

    /** Blank lines and comment lines between statements. */
    private void trivia() {
      while (chance(25)) {
        out.append(ws());
        if (chance(50)) {
          out.append(comment());
        }
        out.append(nl());
      }
    }

    /** The end of a statement's line: spaces, maybe a comment, a newline. */
    private void endLine() {
      out.append(ws());
      if (chance(15)) {
        out.append(comment());
      }
      out.append(nl());
      trivia();
    }

    String document(Map<String, Object> root) {
      trivia();
      Plan plan = plan(root);
      keyValues(root, plan);
      subSections(List.of(), root, plan);
      if (chance(20) && out.length() > 0 && out.charAt(out.length() - 1) == '\n') {
        out.setLength(out.length() - 1); // no newline after the last line
        if (out.length() > 0 && out.charAt(out.length() - 1) == '\r') {
          out.setLength(out.length() - 1);
        }
      }
      return out.toString();
    }

    // --- tables and headers

    enum Form {
      INLINE,
      DOTTED,
      HEADER,
      ARRAY_OF_TABLES
    }

    /** How each entry of a table is written. */
    private static final class Plan extends LinkedHashMap<String, Form> {
      private static final long serialVersionUID = 1L;

      boolean hasKeyValues() {
        return containsValue(Form.INLINE) || containsValue(Form.DOTTED);
      }

      boolean hasSections() {
        return containsValue(Form.HEADER) || containsValue(Form.ARRAY_OF_TABLES);
      }
    }

    private Plan plan(Map<String, Object> table) {
      Plan plan = new Plan();
      table.forEach(
          (k, v) -> {
            Form f = Form.INLINE;
            if (v instanceof Map<?, ?> m) {
              int roll = random.nextInt(100);
              if (roll < 50) {
                f = Form.HEADER;
              } else if (roll < 75 && !m.isEmpty()) {
                f = Form.DOTTED;
              }
            } else if (isArrayOfTables(v) && chance(70)) {
              f = Form.ARRAY_OF_TABLES;
            }
            plan.put(k, f);
          });
      return plan;
    }

    private static boolean isArrayOfTables(Object v) {
      return v instanceof List<?> l && !l.isEmpty() && l.stream().allMatch(x -> x instanceof Map);
    }

    private void keyValues(Map<String, Object> table, Plan plan) {
      table.forEach(
          (k, v) -> {
            if (plan.get(k) == Form.INLINE) {
              keyValue(List.of(k), v);
            } else if (plan.get(k) == Form.DOTTED) {
              dotted(List.of(k), asTable(v));
            }
          });
    }

    private void dotted(List<String> prefix, Map<String, Object> table) {
      table.forEach(
          (k, v) -> {
            List<String> key = append(prefix, k);
            if (v instanceof Map<?, ?> m && !m.isEmpty() && chance(50)) {
              dotted(key, asTable(v));
            } else {
              keyValue(key, v);
            }
          });
    }

    private void keyValue(List<String> key, Object value) {
      out.append(ws()).append(dottedKey(key)).append(ws()).append('=').append(ws());
      out.append(value(value, false));
      endLine();
    }

    private void subSections(List<String> path, Map<String, Object> table, Plan plan) {
      table.forEach(
          (k, v) -> {
            List<String> p = append(path, k);
            if (plan.get(k) == Form.HEADER) {
              tableSection(p, asTable(v));
            } else if (plan.get(k) == Form.ARRAY_OF_TABLES) {
              for (Object element : (List<?>) v) {
                out.append(ws()).append("[[").append(ws()).append(dottedKey(p));
                out.append(ws()).append("]]");
                endLine();
                Map<String, Object> t = asTable(element);
                Plan elementPlan = plan(t);
                keyValues(t, elementPlan);
                subSections(p, t, elementPlan);
              }
            }
          });
    }

    private void tableSection(List<String> path, Map<String, Object> table) {
      Plan plan = plan(table);
      if (!plan.hasKeyValues() && plan.hasSections() && chance(40)) {
        subSections(path, table, plan); // the table is created implicitly by its sub tables
        return;
      }
      boolean superAfterSub = plan.hasSections() && chance(25);
      if (superAfterSub) {
        subSections(path, table, plan);
      }
      out.append(ws()).append('[').append(ws()).append(dottedKey(path)).append(ws()).append(']');
      endLine();
      keyValues(table, plan);
      if (!superAfterSub) {
        subSections(path, table, plan);
      }
    }

    private String dottedKey(List<String> parts) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < parts.size(); i++) {
        if (i > 0) {
          sb.append(ws()).append('.').append(ws());
        }
        sb.append(key(parts.get(i)));
      }
      return sb.toString();
    }

    private String key(String k) {
      if (k.matches("[A-Za-z0-9_-]+") && chance(70)) {
        return k;
      }
      if (literalAllowed(k) && chance(40)) {
        return "'" + k + "'";
      }
      return basic(k);
    }

    // --- values

    private String value(Object v, boolean inInline) {
      if (v instanceof String s) {
        return string(s);
      }
      if (v instanceof Long l) {
        return integer(l);
      }
      if (v instanceof Double d) {
        return floating(d);
      }
      if (v instanceof Boolean b) {
        return b.toString();
      }
      if (v instanceof List<?> l) {
        return array(l, inInline);
      }
      return inlineTable(asTable(v));
    }

    private String array(List<?> values, boolean inInline) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        sb.append(arrayGap(inInline)).append(value(values.get(i), inInline));
        sb.append(arrayGap(inInline));
      }
      if (!values.isEmpty() && chance(25)) {
        sb.append(',');
      }
      return sb.append(arrayGap(inInline)).append(']').toString();
    }

    /** Whitespace, newlines and comments, as allowed between array elements. */
    private String arrayGap(boolean inInline) {
      StringBuilder sb = new StringBuilder(ws());
      while (chance(inInline ? 5 : 20)) {
        if (chance(40)) {
          sb.append(comment());
        }
        sb.append(nl()).append(ws());
      }
      return sb.toString();
    }

    private String inlineTable(Map<String, Object> table) {
      StringBuilder sb = new StringBuilder("{").append(ws());
      List<String> pairs = new ArrayList<>();
      table.forEach((k, v) -> inlinePairs(List.of(k), v, pairs));
      sb.append(String.join(ws() + "," + ws(), pairs));
      return sb.append(ws()).append('}').toString();
    }

    private void inlinePairs(List<String> key, Object v, List<String> pairs) {
      if (v instanceof Map<?, ?> m && !m.isEmpty() && chance(40)) {
        asTable(v).forEach((k, x) -> inlinePairs(append(key, k), x, pairs));
      } else {
        pairs.add(dottedKey(key) + ws() + "=" + ws() + value(v, true));
      }
    }

    // --- strings

    private String string(String s) {
      int roll = random.nextInt(100);
      if (roll < 20 && literalAllowed(s)) {
        return "'" + s + "'";
      }
      if (roll < 40 && multiLineLiteralAllowed(s)) {
        return multiLineLiteral(s);
      }
      if (roll < 70) {
        return multiLineBasic(s);
      }
      return basic(s);
    }

    private static boolean isControl(int c) {
      return (c < 0x20 && c != '\t') || c == 0x7F;
    }

    private static boolean literalAllowed(String s) {
      return s.chars().noneMatch(c -> c == '\'' || isControl(c));
    }

    private static boolean multiLineLiteralAllowed(String s) {
      return !s.contains("'''") && s.chars().noneMatch(c -> c != '\n' && isControl(c));
    }

    private String multiLineLiteral(String s) {
      boolean leadingNewline = s.startsWith("\n") || chance(40);
      return "'''" + (leadingNewline ? nl() : "") + s + "'''";
    }

    private String basic(String s) {
      StringBuilder sb = new StringBuilder("\"");
      s.codePoints().forEach(c -> sb.append(c == '"' ? "\\\"" : escaped(c)));
      return sb.append('"').toString();
    }

    private String multiLineBasic(String s) {
      StringBuilder sb = new StringBuilder("\"\"\"");
      boolean leadingNewline = chance(40);
      if (leadingNewline) {
        sb.append(nl());
      }
      int[] cps = s.codePoints().toArray();
      int rawQuotes = 0;
      for (int i = 0; i < cps.length; i++) {
        int c = cps[i];
        if (c != ' ' && c != '\t' && c != '\n' && chance(8)) {
          lineEndingBackslash(sb);
          rawQuotes = 0;
        }
        if (c == '"') {
          if (rawQuotes < 2 && chance(70)) {
            sb.append('"');
            rawQuotes++;
          } else {
            sb.append("\\\"");
            rawQuotes = 0;
          }
          continue;
        }
        rawQuotes = 0;
        if (c == '\n' && (i > 0 || leadingNewline) && chance(80)) {
          sb.append('\n'); // a raw LF (a raw CRLF might be read as LF; the spec allows both)
        } else {
          sb.append(escaped(c));
        }
      }
      if (chance(10)) {
        lineEndingBackslash(sb);
      }
      return sb.append("\"\"\"").toString();
    }

    /** A backslash ending a line, which swallows the newline and following whitespace. */
    private void lineEndingBackslash(StringBuilder sb) {
      sb.append('\\').append(pick(List.of("", "", " ", "\t "))).append(nl());
      while (chance(30)) {
        sb.append(pick(List.of(" ", "\t", "\n", "\r\n", "  ")));
      }
    }

    /** One code point inside a basic string: escaped where it must be, sometimes where not. */
    private String escaped(int c) {
      switch (c) {
        case '\\':
          return "\\\\";
        case '\b':
          return "\\b";
        case '\n':
          return "\\n";
        case '\f':
          return "\\f";
        case '\r':
          return "\\r";
        case '\t':
          return chance(50) ? "\t" : "\\t";
        default:
          break;
      }
      if (isControl(c) || chance(8)) {
        return unicodeEscape(c);
      }
      return new String(Character.toChars(c));
    }

    private String unicodeEscape(int c) {
      String hex =
          c <= 0xFFFF && chance(70) ? String.format("\\u%04X", c) : String.format("\\U%08X", c);
      return chance(50) ? hex.substring(0, 2) + hex.substring(2).toLowerCase(Locale.ROOT) : hex;
    }

    // --- numbers

    private String integer(long v) {
      if (v >= 0 && chance(40)) {
        String prefix = pick(List.of("0x", "0o", "0b"));
        String digits =
            switch (prefix) {
              case "0x" -> Long.toHexString(v);
              case "0o" -> Long.toOctalString(v);
              default -> Long.toBinaryString(v);
            };
        if (chance(50)) {
          digits = digits.toUpperCase(Locale.ROOT);
        }
        digits = "0".repeat(chance(20) ? random.nextInt(3) : 0) + digits;
        return prefix + underscores(digits, true);
      }
      String text = Long.toString(v);
      String sign = v < 0 ? "-" : (chance(20) ? "+" : "");
      if (v == 0 && chance(20)) {
        sign = "-";
      }
      return sign + underscores(v < 0 ? text.substring(1) : text, false);
    }

    private String floating(double d) {
      if (Double.isNaN(d)) {
        return pick(List.of("nan", "+nan", "-nan"));
      }
      if (Double.isInfinite(d)) {
        return d > 0 ? pick(List.of("inf", "+inf")) : "-inf";
      }
      double a = Math.abs(d);
      String sign = d < 0 ? "-" : (chance(20) ? "+" : "");
      String body;
      switch (random.nextInt(4)) {
        case 0 -> body = Double.toString(a);
        case 1 -> body = BigDecimal.valueOf(a).toString();
        case 2 -> {
          if (a > 1e-7 && a < 1e21) {
            body = new BigDecimal(a).toPlainString();
          } else {
            body = Double.toString(a);
          }
        }
        default -> {
          String s = Double.toString(a);
          int e = s.indexOf('E');
          String mantissa = e < 0 ? s : s.substring(0, e);
          int exp = e < 0 ? 0 : Integer.parseInt(s.substring(e + 1));
          String expSign = exp < 0 ? "-" : (chance(50) ? "+" : "");
          body = mantissa + "e" + expSign + "0".repeat(random.nextInt(3)) + Math.abs(exp);
        }
      }
      if (body.chars().noneMatch(c -> c == '.' || c == 'E' || c == 'e')) {
        body += ".0"; // an integral BigDecimal prints without a fraction
      }
      if (chance(50)) {
        body = body.toLowerCase(Locale.ROOT);
      }
      return sign + underscores(body, false);
    }

    /** Underscores between some pairs of adjacent (hex) digits. */
    private String underscores(String number, boolean hex) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < number.length(); i++) {
        char c = number.charAt(i);
        if (i > 0
            && isDigit(number.charAt(i - 1), hex)
            && isDigit(c, hex)
            && chance(10)
            && !(i == 1 && number.charAt(0) == '0')) {
          sb.append('_');
        }
        sb.append(c);
      }
      return sb.toString();
    }

    private static boolean isDigit(char c, boolean hex) {
      return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asTable(Object v) {
      return (Map<String, Object>) v;
    }

    private static List<String> append(List<String> prefix, String k) {
      List<String> l = new ArrayList<>(prefix);
      l.add(k);
      return l;
    }
  }
}
