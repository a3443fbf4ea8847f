package io.ql3.worker.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Loads the conformance vectors from the test classpath as raw bytes; index files are read with
 * {@link JsonReader}.
 */
final class Vectors {
  private Vectors() {}

  static byte[] bytes(String path) {
    try (InputStream in = Vectors.class.getResourceAsStream("/vectors/" + path)) {
      Objects.requireNonNull(in, () -> "missing vector " + path);
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Entries of a JSON array file (each an object). */
  static List<Entry> index(String path) {
    try {
      JsonValue v = JsonReader.parse(bytes(path));
      List<Entry> out = new ArrayList<>();
      for (JsonValue e : ((JsonValue.JsonArray) v).elements()) {
        out.add(new Entry(((JsonValue.JsonObject) e).members()));
      }
      return out;
    } catch (ContractViolation e) {
      throw new AssertionError("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  /** One index entry with typed accessors; absent and null read as null. */
  record Entry(Map<String, JsonValue> m) {
    String str(String name) {
      JsonValue v = m.get(name);
      return v instanceof JsonValue.JsonString s ? s.value() : null;
    }

    Long num(String name) {
      JsonValue v = m.get(name);
      return v instanceof JsonValue.JsonNumber n ? n.value() : null;
    }

    Entry obj(String name) {
      JsonValue v = m.get(name);
      return v instanceof JsonValue.JsonObject o ? new Entry(o.members()) : null;
    }

    List<String> strings(String name) {
      JsonValue v = m.get(name);
      if (!(v instanceof JsonValue.JsonArray a)) {
        return null;
      }
      List<String> out = new ArrayList<>();
      for (JsonValue e : a.elements()) {
        out.add(((JsonValue.JsonString) e).value());
      }
      return out;
    }

    byte[] utf8(String name) {
      return str(name).getBytes(StandardCharsets.UTF_8);
    }
  }
}
