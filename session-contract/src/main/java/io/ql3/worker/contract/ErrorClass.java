package io.ql3.worker.contract;

/** What the client does about an error answer (contract section 6). */
public enum ErrorClass {
    /** 400, 413, 404, 405: a client bug; stop pulling, log loudly, fail the operation closed. */
    CLIENT_BUG,
    /** 401, 403: stop pulling; keep the session; retry heartbeats while the local lease lasts. */
    CREDENTIAL,
    /** 409 (session codes): the session is fenced; stop pulling, never heartbeat it again. */
    FENCED,
    /** 409 {@code run_not_leased} on complete: the attempt is gone; settle it as superseded. */
    RUN_GONE,
    /** 429, 503: transient; honour {@code retry-after}. */
    TRANSIENT
}
