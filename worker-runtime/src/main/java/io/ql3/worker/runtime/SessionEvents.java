package io.ql3.worker.runtime;

import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.plane.ExecutionPlane;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionListener;
import io.ql3.worker.runtime.session.SessionState;
import java.util.List;

/**
 * What the session coordinator reports, carried out: a register, a drain begun and offline are
 * journaled; state changes, drift and failed requests are logged (a failed request also counts for
 * readiness); runs the server asks to cancel are cancelled, and new work wakes the pull loop.
 */
final class SessionEvents implements SessionListener {
  private final EventLog log;
  private final Journal journal;
  private final AgentReports reports;

  // Attached by start-up, before the cadence starts.
  private SessionCoordinator session;
  private ExecutionPlane plane;

  SessionEvents(EventLog log, Journal journal, AgentReports reports) {
    this.log = log;
    this.journal = journal;
    this.reports = reports;
  }

  /** The coordinator this listens to, and the plane it cancels runs in (once both are built). */
  void attach(SessionCoordinator session, ExecutionPlane plane) {
    this.session = session;
    this.plane = plane;
  }

  @Override
  public void registered(SessionId sessionId, long generation) {
    journal.append(new JournalRecord.SessionRegistered(sessionId.value(), generation));
  }

  @Override
  public void stateChanged(SessionState from, SessionState to, String why) {
    log.info(
        "session.state",
        "from",
        from,
        "to",
        to,
        "session",
        session.sessionId().map(SessionId::value).orElse(""),
        "generation",
        session.generation(),
        "why",
        why);
    if (to == SessionState.ACTIVE) {
      reports.ingressFailed(false);
    }
    if (to == SessionState.DRAINING) {
      journal.append(
          new JournalRecord.DrainBegun(
              session.sessionId().orElseThrow().value(), session.generation()));
    } else if (to == SessionState.OFFLINE) {
      journal.append(
          new JournalRecord.Offline(
              session.sessionId().orElseThrow().value(), session.generation()));
    }
  }

  @Override
  public void cancelRequested(List<RunId> runs) {
    log.info("runs.cancel_requested", "runs", runs.size());
    plane.cancel(runs);
  }

  @Override
  public void workAvailable() {
    plane.workAvailable();
  }

  @Override
  public void drifted(Drift drift) {
    log.error("session.drift", "reason", drift.reason().code(), "detail", drift.detail());
  }

  @Override
  public void requestFailed(String operation, String what) {
    reports.ingressFailed(true);
    log.warn("session.request_failed", "operation", operation, "result", what);
  }
}
