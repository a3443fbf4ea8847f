package io.ql3.worker.contract;

import java.util.Locale;

/**
 * Error codes of section 6, each with the HTTP status(es) it belongs to. Any other pairing is a
 * contract violation ({@link ViolationReason#CODE_STATUS_MISMATCH}).
 *
 * <p>On {@code complete}, {@code run_not_leased} is the only 409 code: the server accepts a
 * completion even for a fenced, expired or offline session, so the session codes cannot apply
 * there; and {@code run_not_leased} belongs to {@code complete} only.
 */
public enum ErrorCode implements WireEnum {
  CONTRACT_VIOLATION(AnswerKind.CLIENT_BUG, 400),
  PAYLOAD_TOO_LARGE(AnswerKind.CLIENT_BUG, 413),
  CREDENTIAL_REJECTED(AnswerKind.CREDENTIAL_REJECTED, 401),
  IDENTITY_MISMATCH(AnswerKind.CREDENTIAL_REJECTED, 403),
  SESSION_FENCED(AnswerKind.FENCED, 409),
  SESSION_CONFLICT(AnswerKind.FENCED, 409),
  VERSION_CONFLICT(AnswerKind.FENCED, 409),
  LEASE_EXPIRED(AnswerKind.FENCED, 409),
  SESSION_NOT_ACTIVE(AnswerKind.FENCED, 409),
  UNKNOWN_OPERATION(AnswerKind.CLIENT_BUG, 404, 405),
  RUN_NOT_LEASED(AnswerKind.RUN_NOT_LEASED, 409),
  RATE_LIMITED(AnswerKind.TRANSIENT, 429),
  UNAVAILABLE(AnswerKind.TRANSIENT, 503);

  private final String wire = name().toLowerCase(Locale.ROOT);
  private final AnswerKind kind;
  private final int[] statuses;

  ErrorCode(AnswerKind kind, int... statuses) {
    this.kind = kind;
    this.statuses = statuses;
  }

  @Override
  public String wire() {
    return wire;
  }

  public AnswerKind kind() {
    return kind;
  }

  /**
   * The HTTP status a server sends with this code (the first one listed: 404 for
   * unknown_operation).
   */
  public int httpStatus() {
    return statuses[0];
  }

  /** True when this code is listed with {@code httpStatus}. */
  public boolean hasStatus(int httpStatus) {
    for (int s : statuses) {
      if (s == httpStatus) {
        return true;
      }
    }
    return false;
  }

  /** True when this code may be sent with {@code httpStatus} as the answer to {@code op}. */
  public boolean belongsTo(int httpStatus, Operation op) {
    if (!hasStatus(httpStatus)) {
      return false;
    }
    if (this == RUN_NOT_LEASED) {
      return op == Operation.COMPLETE;
    }
    if (kind == AnswerKind.FENCED) {
      return op != Operation.COMPLETE;
    }
    return true;
  }

  public static ErrorCode fromWire(String s) {
    for (ErrorCode v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
