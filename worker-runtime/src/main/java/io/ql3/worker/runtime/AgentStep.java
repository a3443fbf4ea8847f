package io.ql3.worker.runtime;

import io.ql3.worker.capacity.LifecyclePhase;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.journal.JournalFailedException;
import io.ql3.worker.runtime.WorkerAgent.Phase;
import io.ql3.worker.runtime.cadence.ClockGapDetector;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.plane.ExecutionPlane;
import io.ql3.worker.runtime.plane.PullGate;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.runtime.session.SessionState;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.util.Optional;

/**
 * The agent's {@link Phase} and the one cadence step that moves it, on {@code ql3-cadence} only (so
 * nothing it calls needs a lock): signals (the first starts the drain, the second cancels every
 * run), a SIGHUP reload, a rotated credential, a clock gap → the session's step → the execution
 * plane's step → the phase's own logic (register when every old run is settled; when draining, go
 * offline once every run is settled, then stop) → the status and metrics files and systemd. A step
 * that fails because the journal failed stops the agent with {@link ExitCode#IOERR}.
 *
 * <p>Start-up moves the phase before the cadence runs ({@link #enter}); from then on only the steps
 * do.
 */
final class AgentStep {
  private static final Failure DRAIN_TIMEOUT =
      new Failure(
          FailureCategory.TRANSIENT,
          "drain_timeout",
          "cancelled: the worker drained and its drain timeout passed");
  private static final Failure SHUTDOWN_NOW =
      new Failure(
          FailureCategory.TRANSIENT,
          "worker_shutdown",
          "cancelled: the worker was asked to stop at once");

  private final AgentConfig config;
  private final WorkerAgent.Environment env;
  private final EventLog log;
  private final SystemdService systemd;
  private final AgentControls controls;
  private final AgentReports reports;

  /** A suspend stops the ticker, not the server's clock: 5 s, or 3 cadence periods if longer. */
  private final ClockGapDetector clockGaps;

  // Attached by start-up, before the cadence starts.
  private CredentialProvider credentials;
  private SessionCoordinator session;
  private ExecutionPlane plane;

  private volatile Phase phase = Phase.WAITING_FOR_CREDENTIALS;
  private long drainStartedAt;
  private boolean runsCancelled;
  private boolean drainLogged;
  private Object lastCredentials;

  AgentStep(
      AgentConfig config,
      WorkerAgent.Environment env,
      AgentControls controls,
      AgentReports reports) {
    this.config = config;
    this.env = env;
    this.log = env.log();
    this.systemd = env.systemd();
    this.controls = controls;
    this.reports = reports;
    this.clockGaps = new ClockGapDetector(Math.max(5_000_000_000L, 3 * config.cadence().toNanos()));
  }

  /** The parts a step drives, once built (start-up, before the cadence starts). */
  void attach(CredentialProvider credentials, SessionCoordinator session, ExecutionPlane plane) {
    this.credentials = credentials;
    this.session = session;
    this.plane = plane;
  }

  /** The agent's phase (any thread). */
  Phase phase() {
    return phase;
  }

  /**
   * Moves the phase, as {@link Phase#canMoveTo} allows (staying is a no-op): start-up before the
   * cadence runs, then only the steps.
   *
   * @throws IllegalStateException for a move the table does not allow (a bug)
   */
  void enter(Phase next) {
    Phase current = phase;
    if (next == current) {
      return;
    }
    if (!current.canMoveTo(next)) {
      throw new IllegalStateException("agent phase " + current + " cannot become " + next);
    }
    phase = next;
  }

  /** One cadence step (the cadence's {@code Step}). */
  void step(long now) {
    int signalCount = controls.signals.get();
    if (signalCount >= 1 && phase != Phase.DRAINING && phase != Phase.STOPPED) {
      beginDrain(now);
    }
    if (signalCount >= 2 && !runsCancelled) {
      runsCancelled = true;
      log.warn("runs.cancel", "reason", "second signal");
      plane.cancelAll(SHUTDOWN_NOW);
    }

    if (controls.reloadRequested.getAndSet(false)) {
      reload();
    }
    noticeCredentialChange();
    long lost = clockGaps.lost(now, env.wallClock().millis());
    if (lost > 0) {
      log.warn(
          "clock.gap",
          "lost_ms",
          lost / 1_000_000,
          "action",
          "the monotonic clock missed this time (suspended?): lease moved earlier, heartbeat now, no pull until it is answered");
      session.clockGap(lost, now);
    }
    session.tick(now);
    if (session.state().isEnded() || session.state() == SessionState.SUSPENDED) {
      plane.sessionLost();
    }
    plane.tick(now, sessionGate);

    switch (phase) {
      case RECONCILING -> {
        if (plane.settled()) {
          enter(Phase.RUNNING);
          session.register(now);
        }
      }
      case RUNNING -> {
        SessionState s = session.state();
        boolean needsSession =
            s == SessionState.NONE || s == SessionState.FENCED || s == SessionState.EXPIRED;
        // A new session only after every run of the old one is settled.
        if (needsSession && plane.settled() && !session.requestOutstanding()) {
          session.register(now);
        }
      }
      case DRAINING -> drainStep(now);
      case STOPPED -> {
        // nothing: the cadence ends after the step that stopped the agent
      }
    }
    reports.writeStatus(now);
    reports.notifySystemd(now);
  }

  /**
   * SIGHUP on the cadence thread: credentials re-read now, status and metrics files reopened and
   * rewritten.
   */
  private void reload() {
    var c = credentials.checkNow();
    reports.openFiles();
    log.info(
        "agent.reloaded",
        "credentials_generation",
        c.tls().generation(),
        "token",
        c.token() == null ? "unusable" : "ok",
        "status_file",
        config.statusFile().map(Object::toString).orElse("none"),
        "metrics_file",
        config.metricsFile().map(Object::toString).orElse("none"),
        "note",
        "other configuration changes need a restart");
  }

  /** The session as the plane reads it, at the moment a pull is sent or its answer harvested. */
  private final PullGate sessionGate =
      new PullGate() {
        @Override
        public Optional<SessionLease> permit(long now) {
          return session.pullPermit(now);
        }

        @Override
        public boolean sessionEnded() {
          return session.state().isEnded();
        }
      };

  /** A rotated certificate or token lets a suspended session retry at once (contract section 6). */
  private void noticeCredentialChange() {
    var current = credentials.current(); // cheap: a clock read between stats
    Object seen =
        java.util.List.of(
            current.tls().generation(), java.util.Objects.requireNonNullElse(current.token(), ""));
    if (lastCredentials != null && !lastCredentials.equals(seen)) {
      log.info("credentials.changed", "generation", current.tls().generation());
      session.credentialsChanged();
    }
    lastCredentials = seen;
  }

  private void beginDrain(long now) {
    enter(Phase.DRAINING);
    systemd.stopping("draining: no new work, " + plane.runCounts().active() + " runs to finish");
    drainStartedAt = now;
    log.info("agent.drain", "drain_timeout_ms", config.execution().drainTimeout().toMillis());
    plane.beginDrain();
    session.beginDrain();
  }

  private void drainStep(long now) {
    if (!runsCancelled && now - drainStartedAt >= config.execution().drainTimeout().toNanos()) {
      runsCancelled = true;
      log.warn("runs.cancel", "reason", "drain timeout");
      plane.cancelAll(DRAIN_TIMEOUT);
    }
    if (!plane.settled()) {
      if (!drainLogged && now - drainStartedAt >= config.execution().drainTimeout().toNanos()) {
        drainLogged = true;
        log.warn(
            "agent.drain.waiting",
            "running",
            plane.runCounts().active(),
            "pending_completions",
            plane.runCounts().pendingCompletions(),
            "why",
            "a run can still produce a completion: the journal stays owned");
      }
      return;
    }
    SessionState s = session.state();
    if (s.isLive() && !session.requestOutstanding()) {
      session.disconnect(now);
      return;
    }
    if (s == SessionState.REGISTERING || session.requestOutstanding()) {
      return;
    }
    if (!s.isLive()) {
      enter(Phase.STOPPED);
      log.info("agent.stopped", "session_state", s);
      reports.writeStatus(now);
      controls.stopped.countDown();
    }
  }

  /** A step threw (the cadence's uncaught-exception handler). */
  void onStepFailure(Throwable e) {
    if (e instanceof JournalFailedException || e.getCause() instanceof JournalFailedException) {
      log.error(
          "journal.failed",
          "problem",
          String.valueOf(e.getMessage()),
          "action",
          "stopping: nothing more can be recorded; runs in flight will be reported uncertain after restart");
      controls.exitCode.set(ExitCode.IOERR.code());
      enter(Phase.STOPPED);
      controls.stopped.countDown();
      return;
    }
    log.error("agent.step_failed", "problem", String.valueOf(e), "error", e);
  }

  /** The agent's phase as the capacity oracle reads it (slots published and pulled). */
  LifecyclePhase lifecycle() {
    if (phase == Phase.RECONCILING) {
      return LifecyclePhase.RECONCILING;
    }
    if (phase == Phase.DRAINING || phase == Phase.STOPPED || session.drainRequested()) {
      return LifecyclePhase.DRAINING;
    }
    return switch (session.state()) {
      case REGISTERING -> LifecyclePhase.REGISTERING;
      case ACTIVE -> session.pullsStopped() ? LifecyclePhase.PULLS_STOPPED : LifecyclePhase.ACTIVE;
      case DRAINING -> LifecyclePhase.DRAINING;
      case OFFLINE -> LifecyclePhase.OFFLINE;
      default -> LifecyclePhase.NO_USABLE_SESSION;
    };
  }
}
