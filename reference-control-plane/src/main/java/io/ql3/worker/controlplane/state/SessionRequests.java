package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import java.time.Clock;
import java.util.Arrays;

/**
 * The session requests of contract section 4: register (new generation, fencing the worker's
 * previous session, register replay), heartbeat (version check, lease renewal, early-heartbeat
 * audit, cancelRuns) and transition (to draining or offline). An applied register or transition
 * settles parked pulls itself, at the request's time; the caller settles again after every
 * heartbeat and transition. Called under the {@link ControlPlane} lock only.
 */
final class SessionRequests {
  private final Clock clock;
  private final Settings settings;
  private final WireCodec wire;
  private final Auditor auditor;
  private final EventLog log;
  private final SessionTable sessions;
  private final SessionRules rules;
  private final RunBook runs;
  private final Offers offers;
  private final ParkedPulls parked;
  private final Answers answers;
  private final PendingWakes wakes;

  SessionRequests(
      Clock clock,
      Settings settings,
      WireCodec wire,
      Auditor auditor,
      EventLog log,
      SessionTable sessions,
      SessionRules rules,
      RunBook runs,
      Offers offers,
      ParkedPulls parked,
      Answers answers,
      PendingWakes wakes) {
    this.clock = clock;
    this.settings = settings;
    this.wire = wire;
    this.auditor = auditor;
    this.log = log;
    this.sessions = sessions;
    this.rules = rules;
    this.runs = runs;
    this.offers = offers;
    this.parked = parked;
    this.answers = answers;
    this.wakes = wakes;
  }

  Reply register(String workerId, String sessionId, byte[] body, Commands.Register cmd) {
    long now = clock.millis();
    Worker w = sessions.worker(workerId);
    Session existing = w.sessions.get(sessionId);
    if (existing != null) {
      rules.expireIfDue(existing, now);
      if (!existing.fenced
          && existing.status == SessionStatus.ACTIVE
          && existing.version == 1
          && Arrays.equals(existing.registerBytes, body)) {
        log.event("register-replay", "worker=" + workerId + " session=" + sessionId);
        return Reply.ok(existing.registerResponse);
      }
      return rules.refuse(
          existing,
          ErrorCode.SESSION_CONFLICT,
          "sessionId "
              + sessionId
              + " was already registered with another body, or is no longer active at version 1",
          now);
    }
    if (w.sessionIdsSeen.contains(sessionId)) {
      return answers.error(
          ErrorCode.SESSION_CONFLICT,
          "sessionId " + sessionId + " was already used by this worker");
    }
    Session previous = w.last;
    if (previous != null) {
      rules.expireIfDue(previous, now);
      rules.fence(previous, "replaced by session " + sessionId);
    }
    long generation = ++w.generation;
    sessions.recordGeneration(w);
    byte[] response =
        wire.registerResponse(
            generation,
            settings.heartbeatIntervalMs(),
            settings.leaseTtlMs(),
            previous == null ? null : previous.generation,
            previous == null ? null : previous.sessionId,
            previous == null ? null : previous.statusAtFence.wire());
    Session s = new Session(workerId, sessionId, generation, body.clone(), response, cmd, now);
    s.heartbeatIntervalMs = settings.heartbeatIntervalMs();
    s.leaseExpiresAt = now + settings.leaseTtlMs();
    w.add(s);
    w.current = s;
    w.last = s;
    log.event(
        "register",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " generation="
            + generation
            + " slots="
            + cmd.availableSlots()
            + "/"
            + cmd.maxConcurrentRuns()
            + (previous == null
                ? ""
                : " replaced=" + previous.sessionId + "(" + previous.statusAtFence.wire() + ")"));
    parked.settleParked(now);
    return Reply.ok(response);
  }

  Reply heartbeat(String workerId, String sessionId, byte[] body, Commands.Heartbeat cmd) {
    long now = clock.millis();
    Session s = sessions.session(workerId, sessionId);
    Reply refused = rules.checkSession(s, cmd.generation(), "heartbeat", body, now, true);
    if (refused != null) {
      return refused;
    }
    refused = rules.refuseUnlessCurrent(s, cmd.version(), cmd.status(), "status", now);
    if (refused != null) {
      return refused;
    }
    Worker w = sessions.worker(workerId);
    boolean credentialRetry = w.credentialsRefusedSinceBeat;
    w.credentialsRefusedSinceBeat = false;
    if (!credentialRetry
        && now < s.lastBeatAt + s.heartbeatIntervalMs - settings.earlyToleranceMs()) {
      auditor.record(
          ViolationKind.EARLY_HEARTBEAT,
          workerId,
          sessionId,
          (now - s.lastBeatAt)
              + " ms after the previous register/heartbeat; interval "
              + s.heartbeatIntervalMs
              + " ms");
    }
    s.version++;
    s.lastBeatAt = now;
    s.availableSlots = cmd.availableSlots();
    s.maxConcurrentRuns = cmd.maxConcurrentRuns();
    long ttl =
        s.status == SessionStatus.DRAINING ? settings.drainingLeaseTtlMs() : settings.leaseTtlMs();
    s.leaseExpiresAt = now + ttl;
    boolean workAvailable = s.status == SessionStatus.ACTIVE && offers.anyQueuedFor(s, now);
    byte[] response = answers.heartbeatResponse(s, ttl, workAvailable);
    rules.applied(s, "heartbeat", body, response);
    return Reply.ok(response);
  }

  Reply transition(String workerId, String sessionId, byte[] body, Commands.Transition cmd) {
    long now = clock.millis();
    Session s = sessions.session(workerId, sessionId);
    Reply refused = rules.checkSession(s, cmd.generation(), "transition", body, now, true);
    if (refused != null) {
      return refused;
    }
    refused = rules.refuseUnlessCurrent(s, cmd.version(), cmd.from(), "from", now);
    if (refused != null) {
      return refused;
    }
    s.moveTo(cmd.to());
    s.version++;
    s.availableSlots = 0;
    s.maxConcurrentRuns = cmd.maxConcurrentRuns();
    long ttl;
    if (cmd.to() == SessionStatus.OFFLINE) {
      ttl = 0;
      s.leaseExpiresAt = now;
      runs.reclaim(s, "offline");
    } else {
      ttl = settings.drainingLeaseTtlMs();
      s.leaseExpiresAt = now + ttl;
    }
    byte[] response = wire.transitionResponse(s.generation, ttl, s.status, s.version);
    rules.applied(s, "transition", body, response);
    log.event(
        "transition",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " "
            + cmd.from().wire()
            + "->"
            + cmd.to().wire()
            + " version="
            + s.version);
    wakes.changedSessions.add(s);
    parked.settleParked(now);
    return Reply.ok(response);
  }
}
