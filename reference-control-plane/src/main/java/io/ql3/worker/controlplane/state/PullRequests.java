package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The pull rules of contract section 5: the session checks, the {@code pullPage} and slot audits,
 * pullId replay, a fresh offer, or a park until runs arrive or {@code waitMs} passes; and the
 * answer of a parked pull whose time is up. The caller settles parked pulls afterwards. Called
 * under the {@link ControlPlane} lock only.
 */
final class PullRequests {
  private final Clock clock;
  private final Settings settings;
  private final WireCodec wire;
  private final Auditor auditor;
  private final EventLog log;
  private final SessionTable sessions;
  private final SessionRules rules;
  private final Offers offers;
  private final ParkedPulls parked;
  private final Answers answers;

  PullRequests(
      Clock clock,
      Settings settings,
      WireCodec wire,
      Auditor auditor,
      EventLog log,
      SessionTable sessions,
      SessionRules rules,
      Offers offers,
      ParkedPulls parked,
      Answers answers) {
    this.clock = clock;
    this.settings = settings;
    this.wire = wire;
    this.auditor = auditor;
    this.log = log;
    this.sessions = sessions;
    this.rules = rules;
    this.offers = offers;
    this.parked = parked;
    this.answers = answers;
  }

  ControlPlane.PullResult pull(
      String workerId, String sessionId, Commands.Pull cmd, ControlPlane.PullWaiter waiter) {
    long now = clock.millis();
    Session s = sessions.session(workerId, sessionId);
    if (s == null) {
      auditor.record(
          ViolationKind.PULL_NOT_ACTIVE, workerId, sessionId, "pull on an unknown session");
      return new ControlPlane.Answered(
          answers.error(ErrorCode.SESSION_NOT_ACTIVE, "unknown session"));
    }
    boolean expiredBefore = s.status == SessionStatus.EXPIRED;
    Reply refused = rules.checkSession(s, cmd.generation(), "pull", null, now, true);
    if (refused != null) {
      if (s.status == SessionStatus.EXPIRED
          && expiredBefore
          && now - s.leaseExpiresAt > settings.earlyToleranceMs()) {
        auditor.record(
            ViolationKind.PULL_NOT_ACTIVE,
            workerId,
            sessionId,
            "pull " + (now - s.leaseExpiresAt) + " ms after the lease expired");
      }
      return new ControlPlane.Answered(refused);
    }
    if (s.status != SessionStatus.ACTIVE) {
      auditor.record(
          ViolationKind.PULL_NOT_ACTIVE, workerId, sessionId, "pull while " + s.status.wire());
      return new ControlPlane.Answered(
          rules.refuse(s, ErrorCode.SESSION_NOT_ACTIVE, "session is " + s.status.wire(), now));
    }
    if (cmd.maxRuns() > s.capability.pullPage()) {
      auditor.record(
          ViolationKind.INVALID_BODY,
          workerId,
          sessionId,
          "pull maxRuns " + cmd.maxRuns() + " above pullPage " + s.capability.pullPage());
      return new ControlPlane.Answered(
          answers.error(
              ErrorCode.CONTRACT_VIOLATION,
              "maxRuns "
                  + cmd.maxRuns()
                  + " is above the advertised pullPage "
                  + s.capability.pullPage()));
    }
    List<Session.PulledRun> original = s.pulls.get(cmd.pullId());
    // A replay is judged by its first try: the runs that fill the slots now are its own offers.
    int canTake = s.maxConcurrentRuns - s.leased.size();
    if (cmd.maxRuns() > canTake && (original == null || original.isEmpty())) {
      auditor.record(
          ViolationKind.PULL_ABOVE_SLOTS,
          workerId,
          sessionId,
          "maxRuns "
              + cmd.maxRuns()
              + " while the session holds "
              + s.leased.size()
              + " of "
              + s.maxConcurrentRuns
              + " runs");
    }
    if (original != null && !original.isEmpty()) {
      List<OfferData> still = new ArrayList<>();
      for (Session.PulledRun p : original) {
        Run r = p.run();
        if (r.state == RunState.LEASED
            && r.lease.sessionId().equals(s.sessionId)
            && r.lease.attempt() == p.attempt()) {
          still.add(r.offer(p.attempt()));
        }
      }
      log.event(
          "pull-replay",
          "worker="
              + workerId
              + " session="
              + sessionId
              + " pullId="
              + cmd.pullId()
              + " offers="
              + still.size());
      return new ControlPlane.Answered(
          Reply.ok(wire.pullResponse(s.generation, 0, still, cmd.pullId())));
    }
    Reply answer = offers.offer(s, cmd, now, false);
    if (answer != null || cmd.waitMs() == 0) {
      return new ControlPlane.Answered(answer != null ? answer : emptyPull(s, cmd, now));
    }
    ParkedPull p = new ParkedPull(s, cmd, waiter);
    parked.park(p);
    long hint = offers.nextPullHint(s, now);
    long parkMs = hint > 0 ? Math.min(hint, cmd.waitMs()) : cmd.waitMs();
    return new ControlPlane.Parked(p, parkMs);
  }

  /** See {@link ControlPlane#parkTimedOut}. */
  Reply parkTimedOut(Object handle) {
    ParkedPull p = (ParkedPull) handle;
    if (!parked.unpark(p)) {
      return null;
    }
    long now = clock.millis();
    Reply refused = rules.checkSession(p.session, p.command.generation(), "pull", null, now, false);
    if (refused != null) {
      return refused;
    }
    Reply answer = offers.offer(p.session, p.command, now, false);
    return answer != null ? answer : emptyPull(p.session, p.command, now);
  }

  private Reply emptyPull(Session s, Commands.Pull cmd, long now) {
    return Reply.ok(
        wire.pullResponse(s.generation, offers.nextPullHint(s, now), List.of(), cmd.pullId()));
  }
}
