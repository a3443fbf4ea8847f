package io.ql3.worker.contract;

/** A worker id (contract section 2). Construction validates the pattern. */
public record WorkerId(String value) implements Comparable<WorkerId> {
  /** The worker-id pattern (checked by hand, not by a regex engine; a test pins the two equal). */
  public static final String PATTERN = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";

  public WorkerId {
    if (value == null) {
      throw new InvalidWireValueException(
          ViolationReason.NULL_NOT_ALLOWED, "", "worker id is null");
    }
    Check.identifier(Patterns.workerId(value), value, "worker id", "");
  }

  /** Validating factory for untrusted input. */
  public static WorkerId of(String value) throws ContractViolation {
    if (value == null || !(Patterns.workerId(value))) {
      throw new ContractViolation(
          ViolationReason.BAD_IDENTIFIER,
          "",
          "not a valid worker id: " + (value == null ? "null" : Check.quote(value)));
    }
    return new WorkerId(value);
  }

  /** True when {@code value} is a valid worker id. */
  public static boolean isValid(String value) {
    return value != null && Patterns.workerId(value);
  }

  @Override
  public int compareTo(WorkerId o) {
    return value.compareTo(o.value);
  }

  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof WorkerId other && value.equals(other.value);
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
