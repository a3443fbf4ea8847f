package io.ql3.worker.cli.toml;

/** A document that is not TOML 1.0.0: where (1-based line and column) and what. */
public final class TomlSyntaxException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final int column;

  TomlSyntaxException(int line, int column, String what) {
    super("line " + line + ", column " + column + ": " + what);
    this.line = line;
    this.column = column;
  }

  /** The 1-based line of the error. */
  public int line() {
    return line;
  }

  /** The 1-based column (in characters) of the error. */
  public int column() {
    return column;
  }
}
