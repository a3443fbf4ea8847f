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
 * The tables of one TOML document and the rules of what may still be added to each: no key or table
 * is defined twice, a {@code [header]} does not reopen a table that dotted keys or another header
 * defined, dotted keys do not add to a table a header defined, inline tables and arrays are
 * complete as written, and {@code [[name]]} appends only to an array of tables.
 *
 * <p>One case the specification leaves open (toml-lang/toml#846): a table created only as the
 * parent of a header ({@code a.b} after {@code [a.b.c]}) may be extended by dotted keys of its
 * parent's section; that defines it, so no {@code [a.b]} header may follow.
 */
final class TomlTables {
  /** How a table came to be, which decides what may still add to it. */
  private enum Origin {
    /** Created as a parent of a {@code [header]}: a header or dotted keys may still define it. */
    IMPLICIT,
    /** Defined by a {@code [header]} or {@code [[header]]}: only its own section adds keys. */
    HEADER,
    /** Defined by a dotted key: more dotted keys of its section may add to it, no header may. */
    DOTTED,
    /** An inline table and every table in it: complete as written. */
    INLINE
  }

  /** A rule broken: the message says which; the parser adds where. */
  static final class Conflict extends Exception {
    private static final long serialVersionUID = 1L;

    Conflict(String message) {
      super(message, null, false, false);
    }
  }

  private final Map<Object, Origin> origins = new IdentityHashMap<>();
  private final Set<Object> tableArrays = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Map<String, Object> root = newTable(Origin.HEADER);

  Map<String, Object> root() {
    return root;
  }

  /** {@code [key]}: the table it defines. */
  Map<String, Object> header(List<String> key) throws Conflict {
    Map<String, Object> parent = parentOfHeader(key);
    String last = key.get(key.size() - 1);
    Object existing = parent.get(last);
    if (existing == null) {
      Map<String, Object> table = newTable(Origin.HEADER);
      parent.put(last, table);
      return table;
    }
    if (origins.get(existing) == Origin.IMPLICIT) {
      origins.put(existing, Origin.HEADER);
      return asTable(existing);
    }
    throw new Conflict("[" + name(key, key.size()) + "]: already defined as " + what(existing));
  }

  /** {@code [[key]]}: the table it appends to the array of tables. */
  Map<String, Object> tableArrayElement(List<String> key) throws Conflict {
    Map<String, Object> parent = parentOfHeader(key);
    String last = key.get(key.size() - 1);
    Object existing = parent.get(last);
    if (existing == null) {
      existing = new ArrayList<>();
      tableArrays.add(existing);
      parent.put(last, existing);
    } else if (!tableArrays.contains(existing)) {
      throw new Conflict("[[" + name(key, key.size()) + "]]: already defined as " + what(existing));
    }
    Map<String, Object> table = newTable(Origin.HEADER);
    asList(existing).add(table);
    return table;
  }

  private Map<String, Object> parentOfHeader(List<String> key) throws Conflict {
    Map<String, Object> parent = root;
    for (int i = 0; i < key.size() - 1; i++) {
      Object v = parent.get(key.get(i));
      if (v == null) {
        Map<String, Object> table = newTable(Origin.IMPLICIT);
        parent.put(key.get(i), table);
        parent = table;
      } else if (tableArrays.contains(v)) {
        List<Object> tables = asList(v);
        parent = asTable(tables.get(tables.size() - 1));
      } else if (v instanceof Map && origins.get(v) != Origin.INLINE) {
        parent = asTable(v);
      } else {
        throw new Conflict(name(key, i + 1) + " is " + what(v) + ", which cannot be extended");
      }
    }
    return parent;
  }

  /**
   * {@code key = ...} in {@code section}: the table that receives the key's last part, which it
   * does not hold yet; the tables of the parts before it are created or entered.
   */
  Map<String, Object> tableForKey(Map<String, Object> section, List<String> key) throws Conflict {
    Map<String, Object> table = section;
    for (int i = 0; i < key.size() - 1; i++) {
      Object v = table.get(key.get(i));
      if (v == null) {
        Map<String, Object> created = newTable(Origin.DOTTED);
        table.put(key.get(i), created);
        table = created;
        continue;
      }
      Origin origin = origins.get(v);
      if (origin != Origin.IMPLICIT && origin != Origin.DOTTED) {
        throw new Conflict(
            name(key, i + 1)
                + " is "
                + what(v)
                + (origin == Origin.HEADER
                    ? ", which only its own [header] section adds keys to"
                    : ""));
      }
      origins.put(v, Origin.DOTTED);
      table = asTable(v);
    }
    if (table.containsKey(key.get(key.size() - 1))) {
      throw new Conflict(name(key, key.size()) + " is defined twice");
    }
    return table;
  }

  /** A new inline table: dotted keys inside it may add to it until {@link #complete}. */
  Map<String, Object> inlineTable() {
    return newTable(Origin.DOTTED);
  }

  /** Marks an inline table and every table defined inside it complete. */
  void complete(Map<String, Object> inline) {
    ArrayDeque<Map<String, Object>> todo = new ArrayDeque<>();
    todo.push(inline);
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
  static String name(List<String> key, int parts) {
    StringBuilder b = new StringBuilder();
    for (String part : key.subList(0, parts)) {
      if (b.length() > 0) {
        b.append('.');
      }
      if (isBare(part)) {
        b.append(part);
      } else {
        TomlCursor.quote(b, part);
      }
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

  static boolean isBareKeyChar(int c) {
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
