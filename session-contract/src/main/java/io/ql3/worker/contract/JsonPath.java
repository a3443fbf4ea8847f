package io.ql3.worker.contract;

import java.util.Arrays;

/**
 * Where {@link JsonReader} is in the document: the member name or element index at each level of
 * nesting, written as a JSON pointer ({@code /offers/3/spec}) only when a violation names it.
 */
final class JsonPath {
  private String[] names = new String[8];
  private int[] indices = new int[8];
  private int depth;

  int depth() {
    return depth;
  }

  /** One level deeper: into an object or an array, before its first member or element. */
  void enter() {
    depth++;
    if (depth == names.length) {
      names = Arrays.copyOf(names, Math.min(names.length * 2, JsonReader.MAX_DEPTH + 1));
      indices = Arrays.copyOf(indices, names.length);
    }
    names[depth] = null;
    indices[depth] = -1;
  }

  void leave() {
    depth--;
  }

  /** At the current level: the member {@code name}. */
  void member(String name) {
    names[depth] = name;
    indices[depth] = -1;
  }

  /** At the current level: the element at {@code index}. */
  void element(int index) {
    names[depth] = null;
    indices[depth] = index;
  }

  String pointer() {
    if (depth == 0) {
      return "";
    }
    StringBuilder p = new StringBuilder();
    for (int d = 1; d <= depth; d++) {
      if (names[d] == null && indices[d] < 0) {
        break;
      }
      p.append('/');
      if (names[d] != null) {
        p.append(names[d].replace("~", "~0").replace("/", "~1"));
      } else {
        p.append(indices[d]);
      }
    }
    return p.toString();
  }
}
