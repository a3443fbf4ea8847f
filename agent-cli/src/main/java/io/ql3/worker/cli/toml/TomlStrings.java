package io.ql3.worker.cli.toml;

/**
 * TOML's four string forms: basic ({@code "..."}, with escapes), literal ({@code '...'}), and their
 * multi-line forms ({@code """..."""}, {@code '''...'''}). Each reader starts at the opening quote
 * and leaves the cursor after the closing one. Newlines inside multi-line strings are kept as
 * written (LF or CRLF).
 */
final class TomlStrings {
  private TomlStrings() {}

  /** A string value at the cursor: any of the four forms. */
  static String readValue(TomlCursor in) throws TomlSyntaxException {
    char quote = (char) in.peek();
    if (in.peek(1) == quote && in.peek(2) == quote) {
      return readMultiLine(in, quote);
    }
    return readOneLine(in, quote);
  }

  /** A quoted key at the cursor: a basic or literal string on one line. */
  static String readKey(TomlCursor in) throws TomlSyntaxException {
    char quote = (char) in.peek();
    if (in.peek(1) == quote && in.peek(2) == quote) {
      throw in.error("a key cannot be a multi-line string");
    }
    return readOneLine(in, quote);
  }

  private static String readOneLine(TomlCursor in, char quote) throws TomlSyntaxException {
    in.advance();
    StringBuilder out = new StringBuilder();
    while (true) {
      int c = in.peek();
      if (c == quote) {
        in.advance();
        return out.toString();
      }
      if (c == TomlCursor.EOF || c == '\n' || c == '\r') {
        throw in.error("unterminated string");
      }
      if (quote == '"' && c == '\\') {
        escape(in, out);
      } else {
        checkAllowed(in, c);
        out.append((char) c);
        in.advance();
      }
    }
  }

  private static String readMultiLine(TomlCursor in, char quote) throws TomlSyntaxException {
    int openedOn = in.line();
    in.advance(3);
    in.skipNewline(); // a newline right after the opening quotes is not part of the string
    StringBuilder out = new StringBuilder();
    while (true) {
      int c = in.peek();
      if (c == quote && in.peek(1) == quote && in.peek(2) == quote) {
        int run = 3;
        while (in.peek(run) == quote) {
          run++;
        }
        if (run > 5) {
          throw in.error("too many quotes at the end of a multi-line string");
        }
        // Up to two quotes before the closing three belong to the string.
        out.append(String.valueOf(quote).repeat(run - 3));
        in.advance(run);
        return out.toString();
      }
      if (c == TomlCursor.EOF) {
        throw in.error("unterminated multi-line string (opened on line " + openedOn + ")");
      }
      if (c == '\n' || c == '\r') {
        int start = in.position();
        in.skipNewline();
        out.append(in.since(start));
      } else if (quote == '"' && c == '\\') {
        if (lineEndingBackslash(in)) {
          continue;
        }
        escape(in, out);
      } else {
        checkAllowed(in, c);
        out.append((char) c);
        in.advance();
      }
    }
  }

  /**
   * A backslash that ends its line (only spaces or tabs after it) in a multi-line basic string:
   * skips it and all whitespace and newlines that follow.
   */
  private static boolean lineEndingBackslash(TomlCursor in) throws TomlSyntaxException {
    int i = 1;
    while (in.peek(i) == ' ' || in.peek(i) == '\t') {
      i++;
    }
    if (in.peek(i) != '\n' && in.peek(i) != '\r') {
      return false;
    }
    in.advance(i);
    while (in.skipNewline()) {
      in.skipSpaces();
    }
    return true;
  }

  private static void escape(TomlCursor in, StringBuilder out) throws TomlSyntaxException {
    int c = in.peek(1);
    switch (c) {
      case 'b' -> out.append('\b');
      case 't' -> out.append('\t');
      case 'n' -> out.append('\n');
      case 'f' -> out.append('\f');
      case 'r' -> out.append('\r');
      case '"' -> out.append('"');
      case '\\' -> out.append('\\');
      case 'u' -> {
        out.appendCodePoint(unicode(in, 4));
        return;
      }
      case 'U' -> {
        out.appendCodePoint(unicode(in, 8));
        return;
      }
      default -> {
        in.advance();
        throw in.error("invalid escape: a backslash before " + in.describeNext());
      }
    }
    in.advance(2);
  }

  /** {@code \\uXXXX} or {@code \\UXXXXXXXX}: a Unicode scalar value (no surrogate). */
  private static int unicode(TomlCursor in, int digits) throws TomlSyntaxException {
    int value = 0;
    for (int i = 0; i < digits; i++) {
      int d = hexDigit(in.peek(2 + i));
      if (d < 0) {
        throw in.error(
            "a \\" + (digits == 4 ? 'u' : 'U') + " escape needs " + digits + " hex digits");
      }
      value = value * 16 + d;
      if (value > Character.MAX_CODE_POINT) {
        throw in.error("escape beyond U+10FFFF");
      }
    }
    if (value >= Character.MIN_SURROGATE && value <= Character.MAX_SURROGATE) {
      throw in.error(
          "escape of a surrogate (" + TomlCursor.codePoint(value) + ") is not a character");
    }
    in.advance(2 + digits);
    return value;
  }

  private static int hexDigit(int c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  private static void checkAllowed(TomlCursor in, int c) throws TomlSyntaxException {
    if (TomlCursor.isControl(c)) {
      throw in.error("control character " + TomlCursor.describe(c) + " in a string");
    }
  }
}
