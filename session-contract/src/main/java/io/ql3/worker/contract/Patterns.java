package io.ql3.worker.contract;

/**
 * The contract's identifier patterns, checked by hand (no regex engine on hot paths), over the
 * string's characters as an array: {@code String.charAt} is four calls a character under the edge
 * agent's interpreter, and decoding a pull answer took 45 % less time without them
 * (docs/perf/edge.md, "Sixteenth pass").
 */
final class Patterns {
  private Patterns() {}

  private static boolean lowerAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static boolean alnum(char c) {
    return lowerAlnum(c) || (c >= 'A' && c <= 'Z');
  }

  private static boolean hexLower(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  /** {@code ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$} */
  static boolean workerId(String s) {
    int n = s.length();
    if (n < 1 || n > 63) {
      return false;
    }
    char[] cs = s.toCharArray();
    if (!lowerAlnum(cs[0]) || !lowerAlnum(cs[n - 1])) {
      return false;
    }
    for (int i = 1; i < n - 1; i++) {
      char c = cs[i];
      if (!lowerAlnum(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$} */
  static boolean uuid7(String s) {
    if (s.length() != 36) {
      return false;
    }
    char[] cs = s.toCharArray();
    for (int i = 0; i < 36; i++) {
      char c = cs[i];
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (c != '-') {
          return false;
        }
      } else if (i == 14) {
        if (c != '7') {
          return false;
        }
      } else if (i == 19) {
        if (c != '8' && c != '9' && c != 'a' && c != 'b') {
          return false;
        }
      } else if (!hexLower(c)) {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$} */
  static boolean runId(String s) {
    int n = s.length();
    if (n < 1 || n > 128) {
      return false;
    }
    char[] cs = s.toCharArray();
    if (!alnum(cs[0])) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = cs[i];
      if (!alnum(c) && c != '.' && c != '_' && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[a-z][a-z0-9-]{0,31}$} */
  static boolean executorName(String s) {
    int n = s.length();
    if (n < 1 || n > 32) {
      return false;
    }
    char[] cs = s.toCharArray();
    if (!(cs[0] >= 'a' && cs[0] <= 'z')) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = cs[i];
      if (!lowerAlnum(c) && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[a-z0-9][a-z0-9._/-]{0,62}$} */
  static boolean labelKey(String s) {
    int n = s.length();
    if (n < 1 || n > 63) {
      return false;
    }
    char[] cs = s.toCharArray();
    if (!lowerAlnum(cs[0])) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = cs[i];
      if (!lowerAlnum(c) && c != '.' && c != '_' && c != '/' && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[a-z][a-z0-9_]{0,63}$} (failure codes, the fail executor's code). */
  static boolean failureCode(String s) {
    int n = s.length();
    if (n < 1 || n > 64) {
      return false;
    }
    char[] cs = s.toCharArray();
    if (!(cs[0] >= 'a' && cs[0] <= 'z')) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = cs[i];
      if (!lowerAlnum(c) && c != '_') {
        return false;
      }
    }
    return true;
  }

  /** {@code ^[A-Za-z_][A-Za-z0-9_]{0,127}$} (process env names). */
  static boolean envName(String s) {
    int n = s.length();
    if (n < 1 || n > 128) {
      return false;
    }
    char[] cs = s.toCharArray();
    char c0 = cs[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_')) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = cs[i];
      if (!alnum(c) && c != '_') {
        return false;
      }
    }
    return true;
  }

  /** 40 lowercase hex characters (agent revision). */
  static boolean hex40(String s) {
    if (s.length() != 40) {
      return false;
    }
    for (char c : s.toCharArray()) {
      if (!hexLower(c)) {
        return false;
      }
    }
    return true;
  }
}
