package io.ql3.worker.contract;

/**
 * A run failure: code {@value #CODE_PATTERN}, message at most {@value #MAX_MESSAGE_CHARS}
 * characters.
 */
public record Failure(FailureCategory category, String code, String message) {
  public static final int MAX_MESSAGE_CHARS = 1024;

  /**
   * The failure-code pattern (checked by hand, not by a regex engine; a test pins the two equal).
   */
  public static final String CODE_PATTERN = "^[a-z][a-z0-9_]{0,63}$";

  static final String[] NAMES = {"category", "code", "message"};

  public Failure {
    Check.present(category, "/category");
    Check.identifier(
        Patterns.failureCode(Check.present(code, "/code")), code, "failure code", "/code");
    Check.chars(message, 0, MAX_MESSAGE_CHARS, "/message");
  }

  /** True when {@code code} matches {@link #CODE_PATTERN}. */
  public static boolean isValidCode(String code) {
    return code != null && Patterns.failureCode(code);
  }

  static Failure read(Obj o) throws ContractViolation {
    FailureCategory c = o.enumValue("category", FailureCategory.class);
    String code = o.string("code");
    String msg = o.string("message");
    try {
      return new Failure(c, code, msg);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"category\":")
        .string(category.wire())
        .ascii(",\"code\":")
        .string(code)
        .ascii(",\"message\":")
        .string(message)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(128);
    write(w);
    return w.toByteArray();
  }

  public static Failure parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
