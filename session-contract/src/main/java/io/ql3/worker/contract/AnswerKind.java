package io.ql3.worker.contract;

import java.util.Optional;

/**
 * What one answer to one operation is, in the terms of section 6: the one vocabulary shared by the
 * error codes ({@link ErrorCode#kind()}), the transport that classifies answers and the runtime's
 * reaction table. The status rows are stated here once ({@link #ofStatus}).
 */
public enum AnswerKind {
  /** 200 with a body that parsed strictly (semantic drift checks are the caller's). */
  SUCCESS,
  /** 400, 413, 404, 405, or a request body over its cap (not sent): a client bug. */
  CLIENT_BUG,
  /**
   * 401, 403, or a TLS alert refusing our client certificate after the server proved its identity.
   */
  CREDENTIAL_REJECTED,
  /** 409 with a session code. */
  FENCED,
  /** 409 {@code run_not_leased} on complete: the run attempt is gone. */
  RUN_NOT_LEASED,
  /** 429 or 503, whatever the body; {@code retry-after} when sent. */
  TRANSIENT,
  /** Other 5xx, reset, timeout or TLS failure after the request was (maybe) sent. */
  OUTCOME_UNKNOWN,
  /**
   * Connect/handshake failure, backoff or deadline before any byte was sent: the server did not
   * act.
   */
  NOT_SENT,
  /** A long poll refused unsent because the connection speaks http/1.1 (section 1). */
  NOT_SENT_ON_HTTP1,
  /**
   * A 200 that breaks the contract or its cap, a contract error body with a code of another row, or
   * a status no row lists.
   */
  DRIFT,
  /** The token file is unusable: the request was not sent. */
  LOCAL_CREDENTIAL_ERROR;

  /**
   * The row of section 6 a non-200 status belongs to, by its status alone (Clarifications: status
   * before body). A 409 is {@link #FENCED}; on {@code complete} a valid {@code run_not_leased} body
   * refines it to {@link #RUN_NOT_LEASED}. The statuses of the rows are {@link ErrorCode}'s (the
   * first code listed with a status names its row); other 5xx are outcome unknown and any other
   * status is drift. Empty for 200.
   */
  public static Optional<AnswerKind> ofStatus(int status) {
    if (status == 200) {
      return Optional.empty();
    }
    for (ErrorCode code : ErrorCode.values()) {
      if (code.hasStatus(status)) {
        return Optional.of(code.kind());
      }
    }
    return Optional.of(status >= 500 && status <= 599 ? OUTCOME_UNKNOWN : DRIFT);
  }

  /** True when the server may have applied the try that got this answer. */
  public boolean mayHaveBeenApplied() {
    return this == OUTCOME_UNKNOWN;
  }

  /** True when the request of this answer never left the client. */
  public boolean notSent() {
    return this == NOT_SENT || this == NOT_SENT_ON_HTTP1 || this == LOCAL_CREDENTIAL_ERROR;
  }
}
