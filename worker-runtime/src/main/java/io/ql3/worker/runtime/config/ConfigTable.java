package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One table of the configuration tree, remembering which keys were read so the rest can be refused:
 * the typed values every table reader takes from it (booleans, strings, paths resolved against a
 * base directory, integers within {@link AgentProfile.Bounds}, arrays, nested tables).
 *
 * <p>Every problem is a {@link ConfigException} naming the file and the dotted key: {@code missing
 * (expected ...)}, {@code must be ... (got ...)} for a wrong type, {@code must be in min..max [for
 * profile p] (got n)} for an integer out of bounds, {@code must be a non-empty path}, {@code not a
 * valid path: ...}, and {@code unknown key} from {@link #finish()} for every key not read.
 */
final class ConfigTable {
  private final Path file;
  private final String prefix;
  private final Map<String, Object> values;
  private final Set<String> used = new HashSet<>();

  ConfigTable(Path file, String prefix, Map<String, Object> values) {
    this.file = file;
    this.prefix = prefix;
    this.values = values == null ? Map.of() : new LinkedHashMap<>(values);
  }

  String keyOf(String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  ConfigException error(String key, String problem) {
    return new ConfigException(file, keyOf(key), problem);
  }

  List<String> keys() {
    return new ArrayList<>(values.keySet());
  }

  /** The raw value of {@code key} (null when absent), marking it read. */
  Object get(String key) {
    used.add(key);
    return values.get(key);
  }

  private Object required(String key, String what) throws ConfigException {
    Object v = get(key);
    if (v == null) {
      throw error(key, "missing (expected " + what + ")");
    }
    return v;
  }

  boolean requiredBoolean(String key) throws ConfigException {
    Object v = required(key, "true or false");
    if (!(v instanceof Boolean b)) {
      throw error(key, "must be true or false (got " + describe(v) + ")");
    }
    return b;
  }

  String requiredString(String key) throws ConfigException {
    Object v = required(key, "a string");
    if (!(v instanceof String s)) {
      throw error(key, "must be a string (got " + describe(v) + ")");
    }
    return s;
  }

  Optional<String> optionalString(String key) throws ConfigException {
    Object v = get(key);
    if (v == null) {
      return Optional.empty();
    }
    if (!(v instanceof String s)) {
      throw error(key, "must be a string (got " + describe(v) + ")");
    }
    return Optional.of(s);
  }

  Path requiredPath(String key, Path base) throws ConfigException {
    return toPath(key, requiredString(key), base);
  }

  Optional<Path> optionalPath(String key, Path base) throws ConfigException {
    Optional<String> s = optionalString(key);
    return s.isPresent() ? Optional.of(toPath(key, s.get(), base)) : Optional.empty();
  }

  private Path toPath(String key, String raw, Path base) throws ConfigException {
    if (raw.isEmpty() || raw.indexOf('\0') >= 0) {
      throw error(key, "must be a non-empty path");
    }
    try {
      return base.resolve(raw).normalize();
    } catch (java.nio.file.InvalidPathException e) {
      throw error(key, "not a valid path: " + e.getMessage());
    }
  }

  long optionalLong(String key, long def, Bounds bounds) throws ConfigException {
    return optionalLong(key, def, bounds, null);
  }

  long optionalLong(String key, long def, Bounds bounds, AgentProfile profile)
      throws ConfigException {
    Object v = get(key);
    if (v == null) {
      return def;
    }
    if (!(v instanceof Long l)) {
      throw error(key, "must be an integer (got " + describe(v) + ")");
    }
    if (!bounds.contains(l)) {
      throw error(
          key,
          "must be in "
              + bounds
              + (profile == null ? "" : " for profile " + profile.wireName())
              + " (got "
              + l
              + ")");
    }
    return l;
  }

  List<String> optionalStringList(String key, List<String> def) throws ConfigException {
    Object v = get(key);
    if (v == null) {
      return def;
    }
    List<String> out = new ArrayList<>();
    for (Object item : asList(key, v)) {
      if (!(item instanceof String s)) {
        throw error(key, "must be an array of strings (found " + describe(item) + ")");
      }
      out.add(s);
    }
    return out;
  }

  List<Long> optionalLongList(String key) throws ConfigException {
    Object v = get(key);
    if (v == null) {
      return List.of();
    }
    List<Long> out = new ArrayList<>();
    for (Object item : asList(key, v)) {
      if (!(item instanceof Long l)) {
        throw error(key, "must be an array of integers (found " + describe(item) + ")");
      }
      out.add(l);
    }
    return out;
  }

  private List<?> asList(String key, Object v) throws ConfigException {
    if (!(v instanceof List<?> list)) {
      throw error(key, "must be an array (got " + describe(v) + ")");
    }
    return list;
  }

  ConfigTable requiredTable(String key) throws ConfigException {
    Object v = required(key, "a table [" + keyOf(key) + "]");
    return asTable(key, v);
  }

  ConfigTable optionalTable(String key) throws ConfigException {
    Object v = get(key);
    return v == null ? new ConfigTable(file, keyOf(key), Map.of()) : asTable(key, v);
  }

  @SuppressWarnings("unchecked")
  private ConfigTable asTable(String key, Object v) throws ConfigException {
    if (!(v instanceof Map<?, ?> m)) {
      throw error(key, "must be a table (got " + describe(v) + ")");
    }
    return new ConfigTable(file, keyOf(key), (Map<String, Object>) m);
  }

  /** Refuses every key that was not read: a typo must not be silently ignored. */
  void finish() throws ConfigException {
    for (String key : values.keySet()) {
      if (!used.contains(key)) {
        throw error(key, "unknown key");
      }
    }
  }

  private static String describe(Object v) {
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof Long) {
      return "an integer";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof List) {
      return "an array";
    }
    if (v instanceof Map) {
      return "a table";
    }
    return "a " + v.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " value";
  }
}
