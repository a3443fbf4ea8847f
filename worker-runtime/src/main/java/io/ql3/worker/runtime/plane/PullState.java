package io.ql3.worker.runtime.plane;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one pull of the execution plane, with its table of allowed transitions.
 *
 * <pre>
 * IDLE ──send──▶ ON_THE_WIRE ──answer applied, refused, or given up──▶ IDLE
 *                   │   ▲
 *   outcome unknown,│   │resend (same bytes, same pullId)
 *   not sent,       ▼   │
 *   suspended   AWAITING_RESEND ──session ended, drain──▶ IDLE
 *                   │
 *   long poll refused on http/1.1 after a try that may have been applied:
 *                BLOCKED_ON_HTTP1 ──resend on h2──▶ ON_THE_WIRE;  ──nothing held: abandoned──▶ IDLE
 *   refused as a client bug after a try that may have been applied:
 *                ANSWER_LOST ──nothing held: abandoned; session ended, drain──▶ IDLE
 *
 * IDLE ──the step that applied the answer never queued its records──▶ AWAITING_RESEND
 * </pre>
 */
enum PullState {
  /** No pull outstanding: a new one may be reserved and sent. */
  IDLE,
  /** A try is on the wire; its answer is harvested by a later step. */
  ON_THE_WIRE,
  /**
   * Kept for a byte-identical resend (same pullId) once its backoff passed and its session may
   * pull.
   */
  AWAITING_RESEND,
  /**
   * A long poll that may have reached the server, whose resend would go out on http/1.1: only an h2
   * connection can learn its answer; abandoned (the session ends) once nothing else is held.
   */
  BLOCKED_ON_HTTP1,
  /**
   * Refused as a client bug after a try that may have been applied: its answer, and the runs it may
   * have leased, can no longer be learned and it is never resent; abandoned (the session ends, so
   * the server reclaims them) once nothing else is held.
   */
  ANSWER_LOST;

  private static final Map<PullState, Set<PullState>> ALLOWED =
      Map.of(
          IDLE, EnumSet.of(ON_THE_WIRE, AWAITING_RESEND),
          ON_THE_WIRE, EnumSet.of(IDLE, AWAITING_RESEND, BLOCKED_ON_HTTP1, ANSWER_LOST),
          AWAITING_RESEND, EnumSet.of(ON_THE_WIRE, IDLE),
          BLOCKED_ON_HTTP1, EnumSet.of(ON_THE_WIRE, IDLE),
          ANSWER_LOST, EnumSet.of(IDLE));

  /** Moves to {@code next} when the table allows it; throws otherwise (a bug). */
  PullState to(PullState next) {
    if (!ALLOWED.get(this).contains(next)) {
      throw new IllegalStateException("pull state " + this + " cannot move to " + next);
    }
    return next;
  }

  boolean canMoveTo(PullState next) {
    return ALLOWED.get(this).contains(next);
  }
}
