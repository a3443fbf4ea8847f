package io.ql3.worker.contract;

import java.util.Objects;

/**
 * A contract violation found while parsing or validating a wire value. This is the only exception a
 * parser of this module throws, whatever the input.
 *
 * <p>Stack traces are not captured: violations are ordinary outcomes of untrusted input.
 */
public final class ContractViolation extends Exception {
  private static final long serialVersionUID = 1L;

  private final ViolationReason reason;
  private final String pointer;
  private final String detail;

  /**
   * @param reason the classification
   * @param pointer RFC 6901 JSON pointer of the offending value, {@code ""} for the whole body
   * @param detail a short human explanation
   */
  public ContractViolation(ViolationReason reason, String pointer, String detail) {
    super(
        reason.code() + (pointer.isEmpty() ? "" : " at " + pointer) + ": " + detail,
        null,
        false,
        false);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.pointer = Objects.requireNonNull(pointer, "pointer");
    this.detail = Objects.requireNonNull(detail, "detail");
  }

  public ViolationReason reason() {
    return reason;
  }

  /** RFC 6901 pointer into the body ({@code ""}: the whole body). */
  public String pointer() {
    return pointer;
  }

  public String detail() {
    return detail;
  }

  /** The same violation located below {@code prefix} (a pointer of the enclosing value). */
  public ContractViolation under(String prefix) {
    return prefix.isEmpty() ? this : new ContractViolation(reason, prefix + pointer, detail);
  }
}
