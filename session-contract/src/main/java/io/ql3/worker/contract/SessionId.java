package io.ql3.worker.contract;

/** A session id (lowercase UUIDv7) (contract section 2). Construction validates the pattern. */
public record SessionId(String value) implements Comparable<SessionId> {
  public SessionId {
    if (value == null) {
      throw new InvalidWireValueException(
          ViolationReason.NULL_NOT_ALLOWED, "", "session id (lowercase UUIDv7) is null");
    }
    Check.identifier(Patterns.uuid7(value), value, "session id (lowercase UUIDv7)", "");
  }

  /** Validating factory for untrusted input. */
  public static SessionId of(String value) throws ContractViolation {
    if (value == null || !(Patterns.uuid7(value))) {
      throw new ContractViolation(
          ViolationReason.BAD_IDENTIFIER,
          "",
          "not a valid session id (lowercase UUIDv7): "
              + (value == null ? "null" : Check.quote(value)));
    }
    return new SessionId(value);
  }

  /** True when {@code value} is a valid session id (lowercase UUIDv7). */
  public static boolean isValid(String value) {
    return value != null && Patterns.uuid7(value);
  }

  @Override
  public int compareTo(SessionId o) {
    return value.compareTo(o.value);
  }

  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof SessionId other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
