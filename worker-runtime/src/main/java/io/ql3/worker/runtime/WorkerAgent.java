package io.ql3.worker.runtime;

import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.credentials.CredentialCheckRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The product composition root: it alone owns the start-up and shutdown order (contract section 7,
 * ADR-0122 §5).
 *
 * <p>Start-up: (the configuration gate ran before this class) → one credential provider and one
 * ingress client → the journal owned, then the connection opened ahead (the TLS handshake, no
 * request, overlaps the steps that follow) → run isolation (leftover run cgroups of this journal
 * killed) → the journal reconciled (runs left uncertain or not started are recorded, their
 * completions queued) → the single cadence starts and delivers those completions to their old
 * sessions → only then register, with capacity from the oracle → pulls allowed.
 *
 * <p>Shutdown (first SIGTERM/SIGINT): abort a parked pull → session {@code draining} with 0
 * capacity → the cadence keeps heartbeating and delivering → runs finish (after the drain timeout
 * they are cancelled cooperatively and complete {@code cancelled}) → {@code offline} once every run
 * is settled → release the journal → close the connection. A second signal cancels runs at once. No
 * timeout skips a step while a completion can still be produced.
 *
 * <p>Threads: the thread that calls {@link #run()} runs every step (the cadence) once the parts are
 * open; the transport has its one event-loop thread; executors finish runs on their own (reaper and
 * timer) threads and only wake the cadence.
 *
 * <p>This class is the public face: it takes the signals and runs the agent until it stopped. The
 * work is done by package-private parts, each with one job: {@link AgentParts} opens the parts in
 * the start-up order and closes them in the shutdown order; {@link AgentStep} is one cadence step
 * and moves the {@link Phase} (drain included); {@link AgentReports} writes the status and metrics
 * files and tells systemd; {@link SessionEvents} and {@link PlaneEvents} log and journal what the
 * session and the execution plane report.
 */
public final class WorkerAgent {

  /** Where the agent is in its own life (the session has its own, finer, state). */
  public enum Phase {
    /** Start-up: the credential files are not usable yet; no connection, no register, no pull. */
    WAITING_FOR_CREDENTIALS,
    /** Delivering what the journal held from before this start; no register yet. */
    RECONCILING,
    /** Registered or registering; pulling while the session is active. */
    RUNNING,
    /** Shutdown began: no pulls, runs finish, completions delivered, then offline. */
    DRAINING,
    /** Offline (or no session left), every run settled: the process may exit. */
    STOPPED;

    /**
     * The transition table: whether this phase may move to {@code next} (another phase). The phases
     * only move forward, and any of them may stop (a journal failure stops the agent wherever it
     * is).
     */
    boolean canMoveTo(Phase next) {
      return switch (this) {
        case WAITING_FOR_CREDENTIALS -> next == RECONCILING || next == STOPPED;
        case RECONCILING -> next == RUNNING || next == DRAINING || next == STOPPED;
        case RUNNING -> next == DRAINING || next == STOPPED;
        case DRAINING -> next == STOPPED;
        case STOPPED -> false;
      };
    }
  }

  /** Things the process provides (tests pass their own). */
  public record Environment(
      Clock wallClock,
      Ticker ticker,
      EventLog log,
      boolean waitForRecovery,
      SystemdService systemd,
      CredentialCheckRecord credentialCheck) {
    /** Not under systemd. */
    public Environment(Clock wallClock, Ticker ticker, EventLog log, boolean waitForRecovery) {
      this(wallClock, ticker, log, waitForRecovery, SystemdService.none());
    }

    /** Without a credential check record: every start verifies the credentials' signatures. */
    public Environment(
        Clock wallClock,
        Ticker ticker,
        EventLog log,
        boolean waitForRecovery,
        SystemdService systemd) {
      this(wallClock, ticker, log, waitForRecovery, systemd, CredentialCheckRecord.none());
    }
  }

  private final EventLog log;
  private final AgentControls controls = new AgentControls();
  private final AgentStep step;
  private final AgentParts parts;

  public WorkerAgent(AgentConfig config, Environment env) {
    this.log = env.log();
    AgentMetrics metrics = new AgentMetrics();
    AgentReports reports = new AgentReports(config, env, metrics);
    this.step = new AgentStep(config, env, controls, reports);
    this.parts = new AgentParts(config, env, controls, metrics, reports, step);
  }

  /**
   * Starts the agent and blocks until it stopped; returns the process exit code. Start-up failures
   * return their {@link ExitCode} after logging what to fix.
   */
  public int run() {
    int code = parts.start();
    if (code != ExitCode.OK.code() || step.phase() == Phase.STOPPED) {
      parts.closeQuietly();
      return code != ExitCode.OK.code() ? code : controls.exitCode.get();
    }
    // The cadence runs on this thread, which has nothing else to do until the agent stopped.
    try {
      parts.runCadence(() -> controls.stopped.getCount() == 0);
      if (controls.stopped.getCount() != 0) {
        // Only an interrupt of this thread ends the cadence before the agent stopped.
        log.error("agent.cadence_ended", "problem", "the cadence ended before the agent stopped");
        controls.exitCode.compareAndSet(ExitCode.OK.code(), ExitCode.SOFTWARE.code());
      }
    } catch (RuntimeException | Error e) {
      // A failure the step's own handler did not contain: stop, releasing what is held.
      log.error("agent.cadence_failed", "problem", String.valueOf(e), "error", e);
      controls.exitCode.compareAndSet(ExitCode.OK.code(), ExitCode.SOFTWARE.code());
    } finally {
      parts.closeQuietly();
    }
    log.info("agent.exit", "code", controls.exitCode.get());
    return controls.exitCode.get();
  }

  /**
   * A shutdown signal (SIGTERM/SIGINT). The first begins the drain; the second cancels every run at
   * once (the agent still waits for their results and delivers them). Safe from any thread.
   */
  public void requestShutdown() {
    int n = controls.signals.incrementAndGet();
    log.info("agent.signal", "count", n, "action", n == 1 ? "drain" : "cancel-runs");
    parts.wakeCadence();
  }

  /**
   * SIGHUP: re-read the credential files at once and reopen the status and metrics files, on the
   * cadence thread; never stops the agent. Other configuration changes need a restart. Safe from
   * any thread.
   */
  public void requestReload() {
    controls.reloadRequested.set(true);
    log.info(
        "agent.signal",
        "signal",
        "HUP",
        "action",
        "reload credentials, reopen status and metrics files");
    parts.wakeCadence();
  }

  /** Waits for the agent to stop (tests). */
  public boolean awaitStopped(Duration timeout) throws InterruptedException {
    return controls.stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public Phase phase() {
    return step.phase();
  }
}
