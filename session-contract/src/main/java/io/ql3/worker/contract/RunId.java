package io.ql3.worker.contract;

/** A run id (contract section 2). Construction validates the pattern. */
public record RunId(String value) implements Comparable<RunId> {
  public RunId {
    if (value == null) {
      throw new InvalidWireValueException(ViolationReason.NULL_NOT_ALLOWED, "", "run id is null");
    }
    Check.identifier(Patterns.runId(value), value, "run id", "");
  }

  /** Validating factory for untrusted input. */
  public static RunId of(String value) throws ContractViolation {
    if (value == null || !(Patterns.runId(value))) {
      throw new ContractViolation(
          ViolationReason.BAD_IDENTIFIER,
          "",
          "not a valid run id: " + (value == null ? "null" : Check.quote(value)));
    }
    return new RunId(value);
  }

  /** True when {@code value} is a valid run id. */
  public static boolean isValid(String value) {
    return value != null && Patterns.runId(value);
  }

  @Override
  public int compareTo(RunId o) {
    return value.compareTo(o.value);
  }

  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof RunId other && value.equals(other.value);
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
