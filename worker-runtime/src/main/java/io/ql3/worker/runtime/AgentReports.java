package io.ql3.worker.runtime;

import io.ql3.worker.capacity.CapacityOracle;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.runtime.WorkerAgent.Phase;
import io.ql3.worker.runtime.boot.CredentialWait;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.metrics.MetricsFile;
import io.ql3.worker.runtime.plane.ExecutionPlane;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionState;
import io.ql3.worker.runtime.status.StatusFile;
import io.ql3.worker.runtime.status.StatusSnapshot;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * What the agent tells the world outside its log about itself: the status file (about once a
 * second), the metrics file (every 5 s), both always on the last step, and systemd (readiness once
 * the journal is reconciled and a session registered or the ingress found unreachable, {@code
 * STATUS=}, the watchdog ping). Before any session: that it waits for usable credentials. Called on
 * the start-up thread until the cadence starts, then on {@code ql3-cadence} only.
 */
final class AgentReports {
  private final AgentConfig config;
  private final WorkerAgent.Environment env;
  private final EventLog log;
  private final SystemdService systemd;
  private final AgentMetrics metrics;

  private MetricsFile.Build buildLabels;
  private String isolationSummary;
  private StatusFile statusFile;
  private MetricsFile metricsFile;

  // Attached by start-up, before the cadence starts.
  private AgentStep step;
  private CredentialProvider credentials;
  private IngressClient client;
  private CapacityOracle oracle;
  private SessionCoordinator session;
  private ExecutionPlane plane;

  private long lastStatusAt;
  private boolean statusWritten;

  private long lastMetricsAt;
  private boolean metricsWritten;

  /** A request to the ingress failed since start (for readiness: reconciled, retrying). */
  private boolean ingressFailed;

  AgentReports(AgentConfig config, WorkerAgent.Environment env, AgentMetrics metrics) {
    this.config = config;
    this.env = env;
    this.log = env.log();
    this.systemd = env.systemd();
    this.metrics = metrics;
  }

  /** The build labels of the metrics file. */
  void buildLabels(MetricsFile.Build buildLabels) {
    this.buildLabels = buildLabels;
  }

  /** The run isolation in force, as the status file says it. */
  void isolationSummary(String isolationSummary) {
    this.isolationSummary = isolationSummary;
  }

  /** The parts reported on, once built (start-up, before the cadence starts). */
  void attach(
      AgentStep step,
      CredentialProvider credentials,
      IngressClient client,
      CapacityOracle oracle,
      SessionCoordinator session,
      ExecutionPlane plane) {
    this.step = step;
    this.credentials = credentials;
    this.client = client;
    this.oracle = oracle;
    this.session = session;
    this.plane = plane;
  }

  /**
   * Opens the status and metrics files the configuration names (again after SIGHUP): the next
   * {@link #writeStatus} writes both.
   */
  void openFiles() {
    statusFile = config.statusFile().map(StatusFile::new).orElse(null);
    metricsFile = config.metricsFile().map(MetricsFile::new).orElse(null);
    statusWritten = false;
    metricsWritten = false;
  }

  /**
   * Whether a request to the ingress failed since start or since the session last became active
   * (readiness: reconciled, retrying).
   */
  void ingressFailed(boolean failed) {
    ingressFailed = failed;
  }

  /**
   * One failed credential load at start-up: said in the log, the status file and systemd's status.
   */
  void waitingForCredentials(CredentialException e) {
    log.warn(
        "credentials.waiting",
        "reason",
        e.reason(),
        "problem",
        e.getMessage(),
        "action",
        "no register, no pull; loading again when a credential file changes and every "
            + CredentialWait.RECHECK.toSeconds()
            + " s");
    String why = "waiting for usable credentials: " + e.getMessage();
    systemd.waiting(why, CredentialWait.RECHECK.multipliedBy(3));
    config
        .statusFile()
        .ifPresent(
            f -> {
              try {
                new StatusFile(f)
                    .write(
                        StatusSnapshot.beforeSession(
                            env.wallClock().instant(),
                            ProcessHandle.current().pid(),
                            config.workerId(),
                            config.profile().wireName(),
                            "waiting_for_credentials",
                            why));
              } catch (IOException x) {
                log.warn("status.write_failed", "file", f, "problem", x.getMessage());
              }
            });
  }

  /**
   * The status file (about once a second) and the metrics file (every 5 s); both on the last step.
   */
  void writeStatus(long now) {
    if (statusFile == null && metricsFile == null) {
      return;
    }
    Phase phase = step.phase();
    // At most about once a second, and always on the last step.
    if (statusWritten
        && phase != Phase.STOPPED
        && now - lastStatusAt < StatusFile.WRITE_INTERVAL.toNanos()) {
      return;
    }
    lastStatusAt = now;
    statusWritten = true;
    var capacity = oracle.compute(step.lifecycle());
    var runs = plane.runCounts();
    StatusSnapshot snap =
        new StatusSnapshot(
            env.wallClock().instant(),
            ProcessHandle.current().pid(),
            config.workerId(),
            config.profile().wireName(),
            phase.name().toLowerCase(java.util.Locale.ROOT),
            session.sessionId().map(SessionId::value).orElse(null),
            session.generation(),
            session.version(),
            session.state().name().toLowerCase(java.util.Locale.ROOT),
            session.leaseRemaining(now).toMillis(),
            session.heartbeatIntervalMs(),
            capacity.availableSlots(),
            capacity.maxConcurrentRuns(),
            capacity.limitedBy().name().toLowerCase(java.util.Locale.ROOT),
            runs.active(),
            runs.pendingCompletions(),
            client.protocol(),
            client.connectionsOpened(),
            credentials.daysToExpiry(),
            session.lastProblem(),
            isolationSummary);
    if (statusFile != null) {
      try {
        statusFile.write(snap);
      } catch (IOException e) {
        log.warn("status.write_failed", "file", statusFile.path(), "problem", e.getMessage());
      }
    }
    // Scrapers read every 15 s or so: every 5 s is plenty, and always on the last step.
    if (metricsFile != null
        && (phase == Phase.STOPPED
            || !metricsWritten
            || now - lastMetricsAt >= TimeUnit.SECONDS.toNanos(5))) {
      lastMetricsAt = now;
      metricsWritten = true;
      try {
        metricsFile.write(
            snap,
            metrics,
            credentials.tls().generation(),
            buildLabels,
            credentials.tls().notAfter());
      } catch (IOException e) {
        log.warn("metrics.write_failed", "file", metricsFile.path(), "problem", e.getMessage());
      }
    }
  }

  /**
   * Readiness once the journal is reconciled and a session registered (or the ingress could not be
   * reached yet: retrying), the status when it changed, and the watchdog ping: this runs at the end
   * of a step that completed, so a hung or always-failing cadence stops the pings.
   */
  void notifySystemd(long now) {
    Phase phase = step.phase();
    String status = serviceStatus(phase);
    if (systemd.readiness() == SystemdService.Readiness.STARTING
        && (phase == Phase.RUNNING || phase == Phase.RECONCILING)) {
      if (phase == Phase.RUNNING && session.state() == SessionState.ACTIVE) {
        systemd.ready(SystemdService.Readiness.READY_REGISTERED, status);
        log.info("agent.ready", "notified", systemd.describe());
      } else if (ingressFailed) {
        systemd.ready(SystemdService.Readiness.READY_RETRYING, status);
        log.info(
            "agent.ready",
            "notified",
            systemd.describe(),
            "session_state",
            session.state(),
            "why",
            "journal reconciled; the ingress is not reachable yet, retrying");
      }
    } else if (systemd.readiness() != SystemdService.Readiness.STARTING) {
      systemd.status(status);
    }
    systemd.progressed(now);
  }

  /** One line for systemd's {@code STATUS=} ({@code systemctl status}). */
  private String serviceStatus(Phase phase) {
    var runs = plane.runCounts();
    String problem = session.lastProblem();
    boolean retrying =
        ingressFailed
            && !session.state().isLive()
            && phase != Phase.DRAINING
            && phase != Phase.STOPPED;
    return (retrying ? "ingress unreachable, retrying; " : "")
        + "phase "
        + phase.name().toLowerCase(java.util.Locale.ROOT)
        + ", session "
        + session.state().name().toLowerCase(java.util.Locale.ROOT)
        + " generation "
        + session.generation()
        + ", runs "
        + runs.active()
        + " running "
        + runs.pendingCompletions()
        + " to deliver"
        + (problem == null || problem.isEmpty() ? "" : ", last problem: " + problem);
  }
}
