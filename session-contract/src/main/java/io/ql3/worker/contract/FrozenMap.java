package io.ql3.worker.contract;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.Set;

/**
 * Read-only view of a map that only {@link JsonReader} created and holds no other reference to, so
 * {@link JsonValue.JsonObject} can keep it without a defensive copy.
 */
final class FrozenMap extends AbstractMap<String, JsonValue> {
  private final HashMap<String, JsonValue> map;

  FrozenMap(HashMap<String, JsonValue> map) {
    this.map = map;
  }

  @Override
  public JsonValue get(Object key) {
    return map.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return map.containsKey(key);
  }

  @Override
  public int size() {
    return map.size();
  }

  @Override
  public Set<Entry<String, JsonValue>> entrySet() {
    return Collections.unmodifiableMap(map).entrySet();
  }

  @Override
  public Set<String> keySet() {
    return Collections.unmodifiableSet(map.keySet());
  }
}
