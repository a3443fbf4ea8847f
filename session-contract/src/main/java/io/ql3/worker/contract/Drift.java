package io.ql3.worker.contract;

import java.util.Objects;

/** A drift: fail closed, stop pulling, treat the session as fenced. */
public record Drift(DriftReason reason, String detail) {
  public Drift {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
  }

  /** A 200 body that could not be parsed is drift too (section 6). */
  public static Drift of(ContractViolation v) {
    DriftReason r =
        switch (v.reason()) {
          case OVER_CAP -> DriftReason.OVER_CAP;
          case SCHEMA_MISMATCH -> DriftReason.SCHEMA_MISMATCH;
          default -> DriftReason.CONTRACT_VIOLATION;
        };
    return new Drift(r, v.getMessage());
  }
}
