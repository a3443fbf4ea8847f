package io.ql3.worker.contract;

/**
 * Why a body, path or value breaks the ql3w v1 contract. {@link #code()} is the lowercase reason
 * string used by the conformance vectors.
 */
public enum ViolationReason {
  /** Body longer than the operation's cap (nothing beyond cap+1 bytes is looked at). */
  OVER_CAP,
  /** Body starts with the UTF-8 byte order mark EF BB BF. */
  BOM,
  /** Invalid UTF-8: overlong forms, CESU-8 surrogates, Latin-1 bytes, truncated sequences. */
  NOT_UTF8,
  /** Non-whitespace after the JSON value. */
  TRAILING_GARBAGE,
  /**
   * Not JSON at all: bad literal, raw control character in a string, leading zero, nesting too
   * deep.
   */
  INVALID_JSON,
  /** An escaped surrogate without its partner. */
  LONE_SURROGATE,
  DUPLICATE_MEMBER,
  UNKNOWN_MEMBER,
  MISSING_MEMBER,
  NULL_NOT_ALLOWED,
  WRONG_TYPE,
  /** A number with a fraction or an exponent. */
  FLOAT_NUMBER,
  /** A value outside its range, enum, length or count bound (also negative or > 2^53-1). */
  OUT_OF_RANGE,
  /** A string breaking one of the contract's identifier patterns. */
  BAD_IDENTIFIER,
  SCHEMA_MISMATCH,
  /** An error body whose code does not belong to the HTTP status (and operation). */
  CODE_STATUS_MISMATCH,
  /** A request body that is not in canonical form (servers refuse those). */
  NOT_CANONICAL,
  CAPABILITY_DIGEST_MISMATCH,
  CAPABILITY_TOO_LARGE,
  SLOTS_OVER_MAX,
  DRAINING_WITH_SLOTS,
  BAD_TRANSITION,
  /** A request path that is none of the five operation templates (a server answers 404). */
  UNKNOWN_OPERATION;

  private final String code = name().toLowerCase(java.util.Locale.ROOT);

  /** The vector reason string, e.g. {@code "over_cap"}. */
  public String code() {
    return code;
  }
}
