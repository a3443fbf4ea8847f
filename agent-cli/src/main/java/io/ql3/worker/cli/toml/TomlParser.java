package io.ql3.worker.cli.toml;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a TOML 1.0.0 document into plain Java values.
 *
 * <p>The tree: tables are {@link LinkedHashMap}s in document order, arrays and arrays of tables
 * {@link List}s, strings {@link String}s, integers {@link Long}s, floats {@link Double}s, booleans
 * {@link Boolean}s; dates and times are the text as written (checked for shape and range). Every
 * rule of the specification is enforced, including that no key or table is defined twice and that
 * inline tables and arrays are complete as written; anything else is a {@link TomlSyntaxException}
 * naming the line and column.
 *
 * <p>Limits: a key has at most {@value #MAX_KEY_PARTS} parts and values nest at most {@value
 * #MAX_NESTING} arrays or inline tables deep, so that no document can exhaust the stack. The caller
 * bounds the document's size.
 */
public final class TomlParser {
  static final int MAX_KEY_PARTS = 64;
  static final int MAX_NESTING = 64;

  /** How a table came to be, which decides what may still add to it. */
  private enum Origin {
    /** Created as a parent of a {@code [header]}: a header may still define it, once. */
    IMPLICIT,
    /** Defined by a {@code [header]} or {@code [[header]]}: only its own section adds keys. */
    HEADER,
    /** Defined by a dotted key: more dotted keys of its section may add to it, no header may. */
    DOTTED,
    /** An inline table: complete as written. */
    INLINE
  }

  private final TomlCursor in;
  private final Map<Object, Origin> origins = new IdentityHashMap<>();
  private final Set<Object> tableArrays = Collections.newSetFromMap(new IdentityHashMap<>());

  private TomlParser(String text) {
    this.in = new TomlCursor(text);
  }

  /** Parses {@code text}, a whole TOML document. */
  public static Map<String, Object> parse(String text) throws TomlSyntaxException {
    return new TomlParser(text).document();
  }

  private Map<String, Object> document() throws TomlSyntaxException {
    Map<String, Object> root = newTable(Origin.HEADER);
    Map<String, Object> section = root;
    while (true) {
      in.skipBlankLines();
      if (in.atEnd()) {
        return root;
      }
      if (in.peek() == '[') {
        section = header(root);
      } else {
        keyValue(section, 0);
      }
      in.expectLineEnd();
    }
  }

  /** {@code [a.b]} or {@code [[a.b]]}: the table that the following key/value pairs fill. */
  private Map<String, Object> header(Map<String, Object> root) throws TomlSyntaxException {
    int start = in.position();
    boolean array = in.peek(1) == '[';
    in.advance(array ? 2 : 1);
    List<String> key = key();
    in.expect(']', "expected ']' to close the table header");
    if (array) {
      in.expect(']', "expected ']]' to close the array of tables header");
    }
    Map<String, Object> parent = root;
    for (int i = 0; i < key.size() - 1; i++) {
      parent = parentForHeader(parent, key, i, start);
    }
    String last = key.get(key.size() - 1);
    Object existing = parent.get(last);
    if (array) {
      if (existing == null) {
        existing = new ArrayList<>();
        tableArrays.add(existing);
        parent.put(last, existing);
      } else if (!tableArrays.contains(existing)) {
        throw in.errorAt(
            start, "[[" + name(key, key.size()) + "]]: already defined as " + what(existing));
      }
      Map<String, Object> table = newTable(Origin.HEADER);
      asList(existing).add(table);
      return table;
    }
    if (existing == null) {
      Map<String, Object> table = newTable(Origin.HEADER);
      parent.put(last, table);
      return table;
    }
    if (origins.get(existing) == Origin.IMPLICIT) {
      origins.put(existing, Origin.HEADER);
      return asTable(existing);
    }
    throw in.errorAt(
        start, "[" + name(key, key.size()) + "]: already defined as " + what(existing));
  }

  private Map<String, Object> parentForHeader(
      Map<String, Object> parent, List<String> key, int i, int start) throws TomlSyntaxException {
    Object v = parent.get(key.get(i));
    if (v == null) {
      Map<String, Object> table = newTable(Origin.IMPLICIT);
      parent.put(key.get(i), table);
      return table;
    }
    if (tableArrays.contains(v)) {
      List<Object> tables = asList(v);
      return asTable(tables.get(tables.size() - 1));
    }
    if (v instanceof Map && origins.get(v) != Origin.INLINE) {
      return asTable(v);
    }
    throw in.errorAt(start, name(key, i + 1) + " is " + what(v) + ", which cannot be extended");
  }

  /** {@code key = value} into {@code section}; the line end is the caller's. */
  private void keyValue(Map<String, Object> section, int nesting) throws TomlSyntaxException {
    int start = in.position();
    List<String> key = key();
    Map<String, Object> table = section;
    for (int i = 0; i < key.size() - 1; i++) {
      table = tableForDottedKey(table, key, i, start);
    }
    String last = key.get(key.size() - 1);
    if (table.containsKey(last)) {
      throw in.errorAt(start, name(key, key.size()) + " is defined twice");
    }
    in.expect('=', "expected '=' after the key " + name(key, key.size()));
    in.skipSpaces();
    table.put(last, value(nesting));
  }

  private Map<String, Object> tableForDottedKey(
      Map<String, Object> table, List<String> key, int i, int start) throws TomlSyntaxException {
    Object v = table.get(key.get(i));
    if (v == null) {
      Map<String, Object> created = newTable(Origin.DOTTED);
      table.put(key.get(i), created);
      return created;
    }
    Origin origin = origins.get(v);
    if (origin == Origin.IMPLICIT || origin == Origin.DOTTED) {
      origins.put(v, Origin.DOTTED);
      return asTable(v);
    }
    throw in.errorAt(
        start,
        name(key, i + 1)
            + " is "
            + what(v)
            + (origin == Origin.HEADER
                ? ", which only its own [header] section adds keys to"
                : ""));
  }

  private Object value(int nesting) throws TomlSyntaxException {
    int c = in.peek();
    if (c == '"' || c == '\'') {
      return TomlStrings.read(in, true);
    }
    if (c == '[' || c == '{') {
      if (nesting == MAX_NESTING) {
        throw in.error("arrays and inline tables nested more than " + MAX_NESTING + " deep");
      }
      return c == '[' ? array(nesting + 1) : inlineTable(nesting + 1);
    }
    return TomlScalars.read(in);
  }

  private List<Object> array(int nesting) throws TomlSyntaxException {
    in.advance();
    List<Object> list = new ArrayList<>();
    while (true) {
      in.skipBlankLines();
      if (in.peek() == ']') {
        in.advance();
        return list;
      }
      list.add(value(nesting));
      in.skipBlankLines();
      if (in.peek() != ',') {
        in.expect(']', "expected ',' or ']' in an array");
        return list;
      }
      in.advance();
    }
  }

  private Map<String, Object> inlineTable(int nesting) throws TomlSyntaxException {
    in.advance();
    Map<String, Object> table = newTable(Origin.DOTTED);
    in.skipSpaces();
    if (in.peek() != '}') {
      while (true) {
        in.skipSpaces();
        keyValue(table, nesting);
        in.skipSpaces();
        if (in.peek() != ',') {
          break;
        }
        in.advance();
      }
    }
    in.expect(
        '}', "expected ',' or '}' in an inline table (on one line, without a trailing comma)");
    freeze(table);
    return table;
  }

  /** Marks an inline table and every table defined inside it complete. */
  private void freeze(Map<String, Object> table) {
    ArrayDeque<Map<String, Object>> todo = new ArrayDeque<>();
    todo.push(table);
    while (!todo.isEmpty()) {
      Map<String, Object> t = todo.pop();
      origins.put(t, Origin.INLINE);
      for (Object v : t.values()) {
        if (v instanceof Map && origins.get(v) != Origin.INLINE) {
          todo.push(asTable(v));
        }
      }
    }
  }

  /** A key of one or more parts separated by dots, with spaces or tabs around each part. */
  private List<String> key() throws TomlSyntaxException {
    List<String> parts = new ArrayList<>(2);
    while (true) {
      in.skipSpaces();
      if (parts.size() == MAX_KEY_PARTS) {
        throw in.error("a key of more than " + MAX_KEY_PARTS + " parts");
      }
      parts.add(simpleKey());
      in.skipSpaces();
      if (in.peek() != '.') {
        return parts;
      }
      in.advance();
    }
  }

  private String simpleKey() throws TomlSyntaxException {
    int c = in.peek();
    if (c == '"' || c == '\'') {
      return TomlStrings.read(in, false);
    }
    int start = in.position();
    while ((c = in.peek()) != TomlCursor.EOF && isBareKeyChar(c)) {
      in.advance();
    }
    if (in.position() == start) {
      throw in.error("expected a key, found " + TomlCursor.describe(c));
    }
    return in.since(start);
  }

  private Map<String, Object> newTable(Origin origin) {
    Map<String, Object> table = new LinkedHashMap<>();
    origins.put(table, origin);
    return table;
  }

  private String what(Object v) {
    if (tableArrays.contains(v)) {
      return "an array of tables";
    }
    if (v instanceof Map) {
      return origins.get(v) == Origin.INLINE ? "an inline table" : "a table";
    }
    return v instanceof List ? "an array" : "a value";
  }

  /** The first {@code parts} parts of {@code key} as TOML writes them, quoted where not bare. */
  private static String name(List<String> key, int parts) {
    StringBuilder b = new StringBuilder();
    for (String part : key.subList(0, parts)) {
      if (b.length() > 0) {
        b.append('.');
      }
      b.append(isBare(part) ? part : '"' + part.replace("\\", "\\\\").replace("\"", "\\\"") + '"');
    }
    return b.toString();
  }

  private static boolean isBare(String part) {
    if (part.isEmpty()) {
      return false;
    }
    for (int i = 0; i < part.length(); i++) {
      if (!isBareKeyChar(part.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isBareKeyChar(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || c == '-';
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asTable(Object v) {
    return (Map<String, Object>) v;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> asList(Object v) {
    return (List<Object>) v;
  }
}
