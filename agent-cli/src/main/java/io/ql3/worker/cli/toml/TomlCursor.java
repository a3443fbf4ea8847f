package io.ql3.worker.cli.toml;

/**
 * A position in a TOML document with what every part of the grammar shares: whitespace, comments,
 * newlines (LF or CRLF; a lone CR is refused) and errors that name their line and column.
 */
final class TomlCursor {
  static final int EOF = -1;

  private final String text;
  private int pos;
  private int line = 1;
  private int lineStart;

  TomlCursor(String text) {
    this.text = text;
  }

  boolean atEnd() {
    return pos >= text.length();
  }

  /** The character at the position, or {@link #EOF}. */
  int peek() {
    return peek(0);
  }

  /** The character {@code ahead} characters after the position, or {@link #EOF}. */
  int peek(int ahead) {
    int i = pos + ahead;
    return i < text.length() ? text.charAt(i) : EOF;
  }

  /** Whether the text at the position starts with {@code s}. */
  boolean startsWith(String s) {
    return text.startsWith(s, pos);
  }

  /** Moves past one character that is not a newline. */
  void advance() {
    pos++;
  }

  void advance(int n) {
    pos += n;
  }

  /** Moves past the newline at the position (LF or CRLF); false when there is none. */
  boolean skipNewline() throws TomlSyntaxException {
    int c = peek();
    if (c == '\r') {
      if (peek(1) != '\n') {
        throw error("a carriage return must be followed by a line feed");
      }
      pos++;
      c = '\n';
    }
    if (c != '\n') {
      return false;
    }
    pos++;
    line++;
    lineStart = pos;
    return true;
  }

  /** Skips spaces and tabs. */
  void skipSpaces() {
    while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
      pos++;
    }
  }

  /** Skips a comment (to the end of the line, not the newline) if one starts here. */
  void skipComment() throws TomlSyntaxException {
    if (peek() != '#') {
      return;
    }
    pos++;
    while (pos < text.length() && text.charAt(pos) != '\n' && text.charAt(pos) != '\r') {
      if (isControl(text.charAt(pos))) {
        throw error("control character " + describe(text.charAt(pos)) + " in a comment");
      }
      pos++;
    }
  }

  /** Skips whitespace, comments and newlines: the space between lines or array elements. */
  void skipBlankLines() throws TomlSyntaxException {
    do {
      skipSpaces();
      skipComment();
    } while (skipNewline());
  }

  /**
   * After a key/value pair or a table header: spaces, an optional comment, then a newline or EOF.
   */
  void expectLineEnd() throws TomlSyntaxException {
    skipSpaces();
    skipComment();
    if (!atEnd() && !skipNewline()) {
      throw error("expected the end of the line, found " + describe(peek()));
    }
  }

  /** Consumes {@code c} or fails with {@code what}. */
  void expect(char c, String what) throws TomlSyntaxException {
    if (peek() != c) {
      throw error(what + ", found " + describe(peek()));
    }
    pos++;
  }

  /** Characters from {@code start} to the position. */
  String since(int start) {
    return text.substring(start, pos);
  }

  int position() {
    return pos;
  }

  TomlSyntaxException error(String what) {
    return errorAt(pos, what);
  }

  /** An error at {@code position}, which is on the current line. */
  TomlSyntaxException errorAt(int position, String what) {
    return new TomlSyntaxException(line, position - lineStart + 1, what);
  }

  /** Control characters TOML refuses in strings and comments: all but tab. */
  static boolean isControl(int c) {
    return (c < 0x20 && c != '\t') || c == 0x7f;
  }

  static String describe(int c) {
    if (c == EOF) {
      return "the end of the file";
    }
    if (c == '\n' || c == '\r') {
      return "the end of the line";
    }
    if (c < 0x20 || c == 0x7f) {
      return String.format("U+%04X", c);
    }
    return "'" + (char) c + "'";
  }
}
