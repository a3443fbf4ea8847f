package io.ql3.worker.runtime.answer;

/** What the runtime does with one answer to one operation; chosen by {@link Reactions#of}. */
public enum Reaction {
  /** A 200: check it for drift, then adopt it. */
  APPLY,
  /**
   * The outcome is unknown or the server did not act: keep the bytes, resend them after a backoff
   * (or the capped retry-after).
   */
  RESEND,
  /**
   * Our credentials were refused (or the token is unusable): stop pulling at once, keep the
   * session; keep the bytes while an earlier try may have been applied, try again on the next due
   * time (at once when a credential file changes).
   */
  SUSPEND,
  /**
   * The session is over for us (409 session code, a heartbeat or transition refused as a client
   * bug, drift): stop pulling, never heartbeat it again.
   */
  FENCE,
  /**
   * A pull refused as a client bug (400, 413, 404, 405): pulling stops for the rest of the session;
   * heartbeats, completions and the drain go on, so the runs already held keep their lease
   * (contract section 6: "stop pulling, log loudly, fail the operation closed"; only a 409 ends the
   * session). The pull is given up; when an earlier try of it may have been applied, the session
   * ends once nothing else is held, so the server reclaims what that lost answer leased.
   */
  STOP_PULLING,
  /**
   * A register that cannot succeed with this sessionId: give it up, register anew after a backoff.
   */
  REGISTER_AGAIN,
  /**
   * A long poll refused unsent because the connection speaks http/1.1: re-plan the pull
   * (docs/runtime.md).
   */
  REPLAN_FOR_HTTP1,
  /** {@code run_not_leased}: the run attempt is gone; record it settled as superseded. */
  SETTLE_SUPERSEDED,
  /**
   * A completion that cannot succeed by resending (409 session code): record it settled as
   * undeliverable.
   */
  SETTLE_UNDELIVERABLE,
  /**
   * A completion refused as a client bug: settle it undeliverable and stop pulling for this
   * session.
   */
  SETTLE_UNDELIVERABLE_STOP_PULLING,
  /** A completion answer that drifted: the session fails closed; the result is kept and resent. */
  RESEND_AND_FAIL_CLOSED
}
