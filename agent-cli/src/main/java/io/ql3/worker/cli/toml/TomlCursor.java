package io.ql3.worker.cli.toml;

import java.util.Locale;

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
    // One charAt per character: configuration files are mostly comments, read interpreted.
    int n = text.length();
    for (pos++; pos < n; pos++) {
      char c = text.charAt(pos);
      if (c == '\n' || c == '\r') {
        return;
      }
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        throw error("control character " + describe(c) + " in a comment");
      }
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
      throw error("expected the end of the line, found " + describeNext());
    }
  }

  /** Consumes {@code c} or fails with {@code what}. */
  void expect(char c, String what) throws TomlSyntaxException {
    if (peek() != c) {
      throw error(what + ", found " + describeNext());
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

  /** The 1-based line of the position. */
  int line() {
    return line;
  }

  TomlSyntaxException error(String what) {
    return errorAt(pos, what);
  }

  /** An error at {@code position}, which is on the current line; columns count characters. */
  TomlSyntaxException errorAt(int position, String what) {
    return new TomlSyntaxException(line, text.codePointCount(lineStart, position) + 1, what);
  }

  /** The character at the position, for an error message (a whole code point). */
  String describeNext() {
    return atEnd() ? describe(EOF) : describe(text.codePointAt(pos));
  }

  /** Control characters TOML refuses in strings and comments: all but tab. */
  static boolean isControl(int c) {
    return (c < 0x20 && c != '\t') || c == 0x7f;
  }

  /** A code point for an error message: quoted, or named when it would not print. */
  static String describe(int c) {
    if (c == EOF) {
      return "the end of the file";
    }
    if (c == '\n' || c == '\r') {
      return "the end of the line";
    }
    if (isControl(c) || c == '\t' || (c <= 0xffff && Character.isSurrogate((char) c))) {
      return codePoint(c);
    }
    return "'" + new String(Character.toChars(c)) + "'";
  }

  /** {@code U+001B}: four hex digits at least. */
  static String codePoint(int c) {
    String hex = Integer.toHexString(c).toUpperCase(Locale.ROOT);
    return "U+" + "0".repeat(Math.max(0, 4 - hex.length())) + hex;
  }

  /** Appends {@code s} as a TOML basic string, control characters escaped: safe in a message. */
  static void quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (isControl(c) || c == '\t') {
        b.append("\\u").append(codePoint(c), 2, 6);
      } else {
        b.append(c);
      }
    }
    b.append('"');
  }
}
