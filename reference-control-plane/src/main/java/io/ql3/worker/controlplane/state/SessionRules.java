package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The session rules every request shares (contract section 4): the checks in their order (unknown,
 * fenced, lease expired, exact replay), the 409 refusal that starts the request-after-fence clock,
 * and the two ways a session ends without asking for it: its lease expires on the server's clock,
 * or it is fenced (by a newer register or by the admin). Either reclaims its runs ({@link
 * RunBook#reclaim}) and marks it changed for the parked pulls ({@link PendingWakes}). Called under
 * the {@link ControlPlane} lock only.
 */
final class SessionRules {
  private final Clock clock;
  private final Settings settings;
  private final Auditor auditor;
  private final EventLog log;
  private final SessionTable sessions;
  private final RunBook runs;
  private final Answers answers;
  private final PendingWakes wakes;

  SessionRules(
      Clock clock,
      Settings settings,
      Auditor auditor,
      EventLog log,
      SessionTable sessions,
      RunBook runs,
      Answers answers,
      PendingWakes wakes) {
    this.clock = clock;
    this.settings = settings;
    this.auditor = auditor;
    this.log = log;
    this.sessions = sessions;
    this.runs = runs;
    this.answers = answers;
    this.wakes = wakes;
  }

  /**
   * The checks every session request shares, in order: unknown session, fenced (or a generation
   * that is not the session's), lease expired, then exact replay of the last applied request
   * (heartbeat and transition: {@code body} non-null). Null: go on.
   */
  Reply checkSession(
      Session s, long generation, String operation, byte[] body, long now, boolean audit) {
    if (s == null) {
      return answers.error(ErrorCode.SESSION_NOT_ACTIVE, "unknown session");
    }
    if (audit && s.first409At >= 0 && now - s.first409At > settings.earlyToleranceMs()) {
      auditor.record(
          ViolationKind.REQUEST_AFTER_FENCE,
          s.workerId,
          s.sessionId,
          operation + " " + (now - s.first409At) + " ms after this session was answered 409");
    }
    expireIfDue(s, now);
    if (s.fenced || generation != s.generation) {
      return refuse(
          s,
          ErrorCode.SESSION_FENCED,
          "generation "
              + generation
              + " is not the worker's current one ("
              + sessions.worker(s.workerId).generation
              + ")",
          now);
    }
    if (s.status == SessionStatus.EXPIRED) {
      return refuse(s, ErrorCode.LEASE_EXPIRED, "the session's lease expired", now);
    }
    if (body != null && operation.equals(s.lastOperation) && Arrays.equals(body, s.lastRequest)) {
      return Reply.ok(s.lastResponse);
    }
    return null;
  }

  /** Remembers the applied heartbeat/transition and its answer for exact-retry replay. */
  void applied(Session s, String operation, byte[] body, byte[] response) {
    s.lastOperation = operation;
    s.lastRequest = body.clone();
    s.lastResponse = response;
  }

  /** A 409 for this session: the first one starts the request-after-fence clock. */
  /**
   * What heartbeat and transition check after {@link #checkSession}: the session is not offline
   * (SESSION_NOT_ACTIVE) and the request names the version and status the server holds
   * (VERSION_CONFLICT; {@code statusField} is the request's name for its status). Null when both
   * hold.
   */
  Reply refuseUnlessCurrent(
      Session s, long version, SessionStatus status, String statusField, long now) {
    if (s.status == SessionStatus.OFFLINE) {
      return refuse(s, ErrorCode.SESSION_NOT_ACTIVE, "session is offline", now);
    }
    if (version != s.version || status != s.status) {
      return refuse(
          s,
          ErrorCode.VERSION_CONFLICT,
          "server holds version "
              + s.version
              + " status "
              + s.status.wire()
              + "; request has version "
              + version
              + " "
              + statusField
              + " "
              + status.wire(),
          now);
    }
    return null;
  }

  Reply refuse(Session s, ErrorCode code, String message, long now) {
    if (s.first409At < 0) {
      s.first409At = now;
    }
    return answers.error(code, message);
  }

  void expireIfDue(Session s, long now) {
    if (s.status.leased() && now >= s.leaseExpiresAt) {
      s.moveTo(SessionStatus.EXPIRED);
      log.event(
          "expire",
          "worker=" + s.workerId + " session=" + s.sessionId + " generation=" + s.generation);
      runs.reclaim(s, "expired");
      wakes.changedSessions.add(s);
    }
  }

  /** Expires every lapsed lease now (reclaiming runs). */
  void expireAllDue(long now) {
    for (Worker w : sessions.all()) {
      for (Session s : new ArrayList<>(w.sessions.values())) {
        expireIfDue(s, now);
      }
    }
  }

  void fence(Session s, String why) {
    if (s.fenced) {
      return;
    }
    s.fenced = true;
    s.statusAtFence = s.status;
    log.event(
        "fence",
        "worker="
            + s.workerId
            + " session="
            + s.sessionId
            + " generation="
            + s.generation
            + " status="
            + s.status.wire()
            + " ("
            + why
            + ")");
    runs.reclaim(s, "fenced");
    wakes.changedSessions.add(s);
  }

  /** See {@link ControlPlane#fenceWorker}; the caller settles parked pulls when this is true. */
  boolean fenceWorker(String workerId) {
    Worker w = sessions.known(workerId);
    if (w == null || w.current == null) {
      return false;
    }
    expireIfDue(w.current, clock.millis());
    w.generation++;
    sessions.recordGeneration(w);
    fence(w.current, "fenced by the admin");
    w.current = null;
    return true;
  }
}
