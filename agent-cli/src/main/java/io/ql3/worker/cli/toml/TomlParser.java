package io.ql3.worker.cli.toml;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a TOML 1.0.0 document into plain Java values.
 *
 * <p>The tree: tables are {@link LinkedHashMap}s in document order, arrays and arrays of tables
 * {@link List}s, strings {@link String}s, integers {@link Long}s, floats {@link Double}s, booleans
 * {@link Boolean}s; dates and times are the text as written (checked for shape and range). The
 * grammar is here and in {@link TomlStrings} and {@link TomlScalars}; what may be added to which
 * table is {@link TomlTables}' (it names the one case the specification leaves open). Anything that
 * is not TOML 1.0.0 is a {@link TomlSyntaxException} naming the line and column; nothing else is
 * thrown.
 *
 * <p>Limits: a key has at most {@value #MAX_KEY_PARTS} parts and values nest at most {@value
 * #MAX_NESTING} arrays or inline tables deep, so that no document can exhaust the stack. The caller
 * bounds the document's size.
 */
public final class TomlParser {
  static final int MAX_KEY_PARTS = 64;
  static final int MAX_NESTING = 64;

  private final TomlCursor in;
  private final TomlTables tables = new TomlTables();

  private TomlParser(String text) {
    this.in = new TomlCursor(text);
  }

  /** Parses {@code text}, a whole TOML document. */
  public static Map<String, Object> parse(String text) throws TomlSyntaxException {
    return new TomlParser(text).document();
  }

  private Map<String, Object> document() throws TomlSyntaxException {
    Map<String, Object> section = tables.root();
    while (true) {
      in.skipBlankLines();
      if (in.atEnd()) {
        return tables.root();
      }
      if (in.peek() == '[') {
        section = header();
      } else {
        keyValue(section, 0);
      }
      in.expectLineEnd();
    }
  }

  /** {@code [a.b]} or {@code [[a.b]]}: the table that the following key/value pairs fill. */
  private Map<String, Object> header() throws TomlSyntaxException {
    int start = in.position();
    boolean array = in.peek(1) == '[';
    in.advance(array ? 2 : 1);
    List<String> key = key();
    in.expect(']', "expected ']' to close the table header");
    if (array) {
      in.expect(']', "expected ']]' to close the array of tables header");
    }
    try {
      return array ? tables.tableArrayElement(key) : tables.header(key);
    } catch (TomlTables.Conflict e) {
      throw in.errorAt(start, e.getMessage());
    }
  }

  /** {@code key = value} into {@code section}; the line end is the caller's. */
  private void keyValue(Map<String, Object> section, int nesting) throws TomlSyntaxException {
    int start = in.position();
    List<String> key = key();
    Map<String, Object> table;
    try {
      table = tables.tableForKey(section, key);
    } catch (TomlTables.Conflict e) {
      throw in.errorAt(start, e.getMessage());
    }
    if (in.peek() != '=') {
      in.expect('=', "expected '=' after the key " + TomlTables.name(key, key.size()));
    }
    in.advance();
    in.skipSpaces();
    table.put(key.get(key.size() - 1), value(nesting));
  }

  private Object value(int nesting) throws TomlSyntaxException {
    int c = in.peek();
    if (c == '"' || c == '\'') {
      return TomlStrings.readValue(in);
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
    int openedOn = in.line();
    in.advance();
    List<Object> list = new ArrayList<>();
    while (true) {
      in.skipBlankLines();
      if (in.peek() == ']') {
        in.advance();
        return list;
      }
      if (in.atEnd()) {
        throw in.error("unterminated array (opened on line " + openedOn + ")");
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
    Map<String, Object> table = tables.inlineTable();
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
        in.skipSpaces();
        if (in.peek() == '}') {
          throw in.error("an inline table ends without a comma after its last pair");
        }
      }
    }
    in.expect('}', "expected ',' or '}' in an inline table (which stays on one line)");
    tables.complete(table);
    return table;
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
      return TomlStrings.readKey(in);
    }
    int start = in.position();
    while ((c = in.peek()) != TomlCursor.EOF && TomlTables.isBareKeyChar(c)) {
      in.advance();
    }
    if (in.position() == start) {
      throw in.error("expected a key, found " + in.describeNext());
    }
    return in.since(start);
  }
}
