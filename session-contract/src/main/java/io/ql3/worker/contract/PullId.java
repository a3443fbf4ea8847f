package io.ql3.worker.contract;

/** A pull id (lowercase UUIDv7) (contract section 2). Construction validates the pattern. */
public record PullId(String value) implements Comparable<PullId> {
  public PullId {
    if (value == null) {
      throw new InvalidWireValueException(
          ViolationReason.NULL_NOT_ALLOWED, "", "pull id (lowercase UUIDv7) is null");
    }
    Check.identifier(Patterns.uuid7(value), value, "pull id (lowercase UUIDv7)", "");
  }

  /** Validating factory for untrusted input. */
  public static PullId of(String value) throws ContractViolation {
    if (value == null || !(Patterns.uuid7(value))) {
      throw new ContractViolation(
          ViolationReason.BAD_IDENTIFIER,
          "",
          "not a valid pull id (lowercase UUIDv7): "
              + (value == null ? "null" : Check.quote(value)));
    }
    return new PullId(value);
  }

  /** True when {@code value} is a valid pull id (lowercase UUIDv7). */
  public static boolean isValid(String value) {
    return value != null && Patterns.uuid7(value);
  }

  @Override
  public int compareTo(PullId o) {
    return value.compareTo(o.value);
  }

  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof PullId other && value.equals(other.value);
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
