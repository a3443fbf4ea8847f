package io.ql3.worker.contract;

import java.util.Locale;

/**
 * Error codes of section 6, each with the HTTP status(es) it belongs to. Any other pairing is
 * a contract violation ({@link ViolationReason#CODE_STATUS_MISMATCH}).
 *
 * <p>On {@code complete}, {@code run_not_leased} is the only 409 code: the server accepts a
 * completion even for a fenced, expired or offline session, so the session codes cannot
 * apply there; and {@code run_not_leased} belongs to {@code complete} only.
 */
public enum ErrorCode implements WireEnum {
    CONTRACT_VIOLATION(ErrorClass.CLIENT_BUG, 400),
    PAYLOAD_TOO_LARGE(ErrorClass.CLIENT_BUG, 413),
    CREDENTIAL_REJECTED(ErrorClass.CREDENTIAL, 401),
    IDENTITY_MISMATCH(ErrorClass.CREDENTIAL, 403),
    SESSION_FENCED(ErrorClass.FENCED, 409),
    SESSION_CONFLICT(ErrorClass.FENCED, 409),
    VERSION_CONFLICT(ErrorClass.FENCED, 409),
    LEASE_EXPIRED(ErrorClass.FENCED, 409),
    SESSION_NOT_ACTIVE(ErrorClass.FENCED, 409),
    UNKNOWN_OPERATION(ErrorClass.CLIENT_BUG, 404, 405),
    RUN_NOT_LEASED(ErrorClass.RUN_GONE, 409),
    RATE_LIMITED(ErrorClass.TRANSIENT, 429),
    UNAVAILABLE(ErrorClass.TRANSIENT, 503);

    private final String wire = name().toLowerCase(Locale.ROOT);
    private final ErrorClass errorClass;
    private final int[] statuses;

    ErrorCode(ErrorClass errorClass, int... statuses) {
        this.errorClass = errorClass;
        this.statuses = statuses;
    }

    @Override
    public String wire() {
        return wire;
    }

    public ErrorClass errorClass() {
        return errorClass;
    }

    /** The HTTP status a server sends with this code (the first one listed: 404 for unknown_operation). */
    public int httpStatus() {
        return statuses[0];
    }

    /** True when this code may be sent with {@code httpStatus} as the answer to {@code op}. */
    public boolean belongsTo(int httpStatus, Operation op) {
        boolean statusOk = false;
        for (int s : statuses) {
            statusOk |= s == httpStatus;
        }
        if (!statusOk) {
            return false;
        }
        if (this == RUN_NOT_LEASED) {
            return op == Operation.COMPLETE;
        }
        if (errorClass == ErrorClass.FENCED) {
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
