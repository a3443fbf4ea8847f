package io.ql3.worker.contract;

/**
 * Thrown by the constructors of wire records when a value breaks the contract. Records cannot throw
 * checked exceptions from their constructors; the parsers translate this into the {@link
 * ContractViolation} it carries, so the rules live in one place (the record).
 */
public final class InvalidWireValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient ContractViolation violation;

  public InvalidWireValueException(ContractViolation violation) {
    super(violation.getMessage(), violation);
    this.violation = violation;
  }

  public InvalidWireValueException(ViolationReason reason, String pointer, String detail) {
    this(new ContractViolation(reason, pointer, detail));
  }

  public ContractViolation violation() {
    return violation;
  }
}
