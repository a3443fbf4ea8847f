package io.ql3.worker.runtime;

import io.ql3.worker.capacity.CapacityLimits;
import io.ql3.worker.capacity.CapacityOracle;
import io.ql3.worker.capacity.LifecyclePhase;
import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalFailedException;
import io.ql3.worker.journal.JournalOwnedException;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunResult;
import io.ql3.worker.runtime.boot.CredentialWait;
import io.ql3.worker.runtime.cadence.Cadence;
import io.ql3.worker.runtime.cadence.ClockGapDetector;
import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.ProxySelection;
import io.ql3.worker.runtime.exec.ExecutorConfigurationException;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.SystemExecutionClock;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.IsolationException;
import io.ql3.worker.runtime.isolation.RunUsage;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.metrics.MetricsFile;
import io.ql3.worker.runtime.metrics.TimedCalls;
import io.ql3.worker.runtime.plane.ExecutionPlane;
import io.ql3.worker.runtime.plane.PlaneIngress;
import io.ql3.worker.runtime.plane.PlaneListener;
import io.ql3.worker.runtime.plane.PlaneSettings;
import io.ql3.worker.runtime.plane.PullGate;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionInputs;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.runtime.session.SessionListener;
import io.ql3.worker.runtime.session.SessionState;
import io.ql3.worker.runtime.status.StatusFile;
import io.ql3.worker.runtime.status.StatusSnapshot;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The product composition root: it alone owns the start-up and shutdown order (contract section 7,
 * ADR-0122 §5).
 *
 * <p>Start-up: (the configuration gate ran before this class) → one credential provider and one
 * ingress client → the journal owned → run isolation (leftover run cgroups of this journal killed)
 * → the journal reconciled (runs left uncertain or not started are recorded, their completions
 * queued) → the single cadence starts and delivers those completions to their old sessions → only
 * then register, with capacity from the oracle → pulls allowed.
 *
 * <p>Shutdown (first SIGTERM/SIGINT): abort a parked pull → session {@code draining} with 0
 * capacity → the cadence keeps heartbeating and delivering → runs finish (after the drain timeout
 * they are cancelled cooperatively and complete {@code cancelled}) → {@code offline} once every run
 * is settled → release the journal → close the connection. A second signal cancels runs at once. No
 * timeout skips a step while a completion can still be produced.
 *
 * <p>Threads: the cadence thread runs every step; the transport has its one event-loop thread;
 * executors finish runs on their own (reaper and timer) threads and only wake the cadence.
 */
public final class WorkerAgent {
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
    STOPPED
  }

  /** Things the process provides (tests pass their own). */
  public record Environment(
      Clock wallClock,
      Ticker ticker,
      EventLog log,
      boolean waitForRecovery,
      SystemdService systemd) {
    /** Not under systemd. */
    public Environment(Clock wallClock, Ticker ticker, EventLog log, boolean waitForRecovery) {
      this(wallClock, ticker, log, waitForRecovery, SystemdService.none());
    }
  }

  private final AgentConfig config;
  private final Environment env;
  private final EventLog log;
  private final SystemdService systemd;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicInteger signals = new AtomicInteger();
  private final AtomicInteger exitCode = new AtomicInteger(ExitCode.OK.code());
  private final java.util.concurrent.atomic.AtomicBoolean reloadRequested =
      new java.util.concurrent.atomic.AtomicBoolean();

  // Built by start(); used only on the cadence thread afterwards.
  private CredentialProvider credentials;
  private IngressClient client;
  private Journal journal;
  private SystemExecutionClock executionClock;
  private CapacityOracle oracle;
  private SessionCoordinator session;
  private ExecutionPlane plane;
  private Cadence cadence;
  private StatusFile statusFile;
  private MetricsFile metricsFile;
  private final AgentMetrics metrics = new AgentMetrics();
  private MetricsFile.Build buildLabels;
  private final RunUsageBook usage = new RunUsageBook(metrics);
  private Isolation isolation;

  /** A suspend stops the ticker, not the server's clock: 5 s, or 3 cadence periods if longer. */
  private final ClockGapDetector clockGaps;

  private String isolationSummary;
  private volatile Phase phase = Phase.RECONCILING;
  private long drainStartedAt;
  private boolean runsCancelled;
  private boolean drainLogged;

  /** A request to the ingress failed since start (for readiness: reconciled, retrying). */
  private boolean ingressFailed;

  public WorkerAgent(AgentConfig config, Environment env) {
    this.config = config;
    this.env = env;
    this.clockGaps = new ClockGapDetector(Math.max(5_000_000_000L, 3 * config.cadence().toNanos()));
    this.log = env.log();
    this.systemd = env.systemd();
  }

  /**
   * Starts the agent and blocks until it stopped; returns the process exit code. Start-up failures
   * return their {@link ExitCode} after logging what to fix.
   */
  public int run() {
    int code = start();
    if (code != ExitCode.OK.code() || phase == Phase.STOPPED) {
      closeQuietly();
      return code != ExitCode.OK.code() ? code : exitCode.get();
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeQuietly();
    log.info("agent.exit", "code", exitCode.get());
    return exitCode.get();
  }

  /**
   * A shutdown signal (SIGTERM/SIGINT). The first begins the drain; the second cancels every run at
   * once (the agent still waits for their results and delivers them). Safe from any thread.
   */
  public void requestShutdown() {
    int n = signals.incrementAndGet();
    log.info("agent.signal", "count", n, "action", n == 1 ? "drain" : "cancel-runs");
    Cadence c = cadence;
    if (c != null) {
      c.wake();
    }
  }

  /**
   * SIGHUP: re-read the credential files at once and reopen the status and metrics files, on the
   * cadence thread; never stops the agent. Other configuration changes need a restart. Safe from
   * any thread.
   */
  public void requestReload() {
    reloadRequested.set(true);
    log.info(
        "agent.signal",
        "signal",
        "HUP",
        "action",
        "reload credentials, reopen status and metrics files");
    Cadence c = cadence;
    if (c != null) {
      c.wake();
    }
  }

  /** Waits for the agent to stop (tests). */
  public boolean awaitStopped(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public Phase phase() {
    return phase;
  }

  // ------------------------------------------------------------------ start-up

  private int start() {
    BuildInfo build = BuildInfo.load();
    buildLabels =
        new MetricsFile.Build(
            build.version(),
            build.revision(),
            System.getProperty("java.version"),
            config.profile().wireName());
    log.info(
        "agent.start",
        "version",
        build.version(),
        "revision",
        build.revision(),
        "profile",
        config.profile().wireName(),
        "worker",
        config.workerId(),
        "config",
        config.source(),
        "pid",
        ProcessHandle.current().pid(),
        "java",
        System.getProperty("java.version"));
    WorkerId workerId;
    try {
      workerId = WorkerId.of(config.workerId());
    } catch (ContractViolation e) {
      log.error("config.invalid", "key", "worker.id", "problem", e.getMessage());
      return ExitCode.CONFIG.code();
    }

    // 1. One credential provider (waiting until the files are usable), one ingress client.
    try {
      CredentialFiles files =
          new CredentialFiles(
              config.credentials().certificate(),
              config.credentials().privateKey(),
              config.credentials().trust(),
              config.credentials().token());
      CredentialProvider.Settings settings =
          new CredentialProvider.Settings(
              Duration.ofSeconds(1),
              Duration.ofDays(config.credentials().expiryWarningDays()),
              CredentialProvider.Settings.defaults().checkInterval());
      phase = Phase.WAITING_FOR_CREDENTIALS;
      var loaded =
          new CredentialWait(
                  () ->
                      CredentialProvider.load(files, config.workerId(), env.wallClock(), settings),
                  files,
                  env.ticker(),
                  this::waitingForCredentials,
                  () -> signals.get() > 0,
                  () -> reloadRequested.getAndSet(false))
              .await();
      if (loaded.isEmpty()) {
        log.info(
            "agent.stopped", "phase", phase, "why", "stopped while waiting for usable credentials");
        phase = Phase.STOPPED;
        return ExitCode.OK.code();
      }
      credentials = loaded.get();
      phase = Phase.RECONCILING;
      ProxySelection route;
      try {
        route = ProxySelection.select(config, System.getenv());
      } catch (io.ql3.worker.runtime.config.ConfigException e) {
        log.error("config.invalid", "key", "HTTPS_PROXY", "problem", e.getMessage());
        return ExitCode.CONFIG.code();
      }
      log.info(
          "ingress.route",
          "ingress",
          config.ingress().host() + ":" + config.ingress().port(),
          "proxy",
          route.proxy().map(Object::toString).orElse("none"),
          "source",
          route.source());
      TransportSettings transport =
          TransportSettings.defaults(build.version())
              .withResponseTimeout(Duration.ofSeconds(30))
              .withProxy(route.proxy().orElse(null));
      client =
          IngressClient.open(
              new IngressEndpoint(config.ingress().host(), config.ingress().port()),
              workerId,
              credentials,
              transport);
    } catch (CredentialException e) {
      log.error("credentials.invalid", "reason", e.reason(), "problem", e.getMessage());
      return e.reason() == CredentialException.Reason.IDENTITY_MISMATCH
          ? ExitCode.CONFIG.code()
          : ExitCode.NOPERM.code();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCode.SOFTWARE.code();
    }

    // 2. The journal, owned and reconciled, before any register.
    int journalCode = openJournal();
    if (journalCode != ExitCode.OK.code()) {
      return journalCode;
    }

    // 3. Run isolation, once this process owns the journal: its cgroup sweep kills what an
    // earlier process of this same journal left running (kill -9, power cut).
    try {
      isolation = IsolationStartup.open(config, log);
    } catch (IsolationException e) {
      log.error(
          "isolation.missing",
          "mode",
          "required",
          "missing",
          String.join("; ", e.missing()),
          "action",
          "fix what is named, or set execution.isolation = \"auto\" (see docs/executors.md); no register, no pull");
      return ExitCode.CONFIG.code();
    } catch (IOException e) {
      log.error(
          "isolation.work_dir", "dir", config.execution().workDir(), "problem", e.getMessage());
      return ExitCode.CONFIG.code();
    }
    metrics.isolation(isolation.parts());
    isolationSummary = isolation.summary();

    // 4. Executors (the process executor starts runs under the isolation) and the capability.
    ExecutorRegistry executors;
    Capability capability;
    try {
      executors = AgentCapability.executors(config, isolation, usage);
      capability = AgentCapability.capability(config, executors, build);
    } catch (ExecutorConfigurationException e) {
      log.error("config.invalid", "key", "execution.executors", "problem", e.getMessage());
      return ExitCode.CONFIG.code();
    } catch (ContractViolation e) {
      log.error(
          "config.invalid",
          "key",
          "worker.labels",
          "problem",
          "capability refused: " + e.getMessage());
      return ExitCode.CONFIG.code();
    }

    executionClock = new SystemExecutionClock(env.wallClock());
    oracle =
        new CapacityOracle(
            new CapacityLimits(
                config.execution().maxConcurrentRuns(), config.journal().freeSpaceFloorBytes()),
            journal);
    SecureRandom random = new SecureRandom();
    Uuid7Generator ids = new Uuid7Generator(env.wallClock(), random);
    Runnable wake =
        () -> {
          Cadence c = cadence;
          if (c != null) {
            c.wake();
          }
        };
    session =
        new SessionCoordinator(
            SessionCoordinator.IngressClient.of(client, new TimedCalls(metrics)),
            capability,
            new SessionInputs() {
              @Override
              public int availableSlots() {
                return oracle.compute(lifecycle()).availableSlots();
              }

              @Override
              public io.ql3.worker.contract.RunCounts runCounts() {
                return plane.runCounts();
              }
            },
            new SessionEvents(),
            ids,
            wake,
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            random);
    journal.facts().session().ifPresent(f -> session.generationHeldBefore(f.generation()));
    plane =
        new ExecutionPlane(
            journal,
            PlaneIngress.of(client, new TimedCalls(metrics)),
            executors,
            OfferPolicy.of(capability),
            new PlaneSettings(
                config.execution().workDir(),
                config.execution().pullPage(),
                config.execution().longPoll(),
                Duration.ofSeconds(1),
                Duration.ofSeconds(60),
                64),
            ids,
            executionClock,
            () -> oracle.compute(lifecycle()).availableSlots(),
            new PlaneEvents(),
            wake,
            random);
    statusFile = config.statusFile().map(StatusFile::new).orElse(null);
    metricsFile = config.metricsFile().map(MetricsFile::new).orElse(null);

    ExecutionPlane.Reconciliation r = plane.reconcile();
    for (int i = 0; i < r.reportedUncertain(); i++) {
      metrics.runOutcome("uncertain");
    }
    log.info(
        "journal.reconciled",
        "uncertain",
        r.reportedUncertain(),
        "not_started",
        r.reportedNotStarted(),
        "completions_to_deliver",
        r.completionsToDeliver());

    // 5. The single cadence: it delivers the reconciled completions, then registers.
    cadence =
        new Cadence(
            "ql3-cadence", config.cadence(), env.ticker(), this::step, (t, e) -> onStepFailure(e));
    cadence.start();
    return ExitCode.OK.code();
  }

  /**
   * One failed credential load at start-up: said in the log, the status file and systemd's status.
   */
  private void waitingForCredentials(CredentialException e) {
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

  private int openJournal() {
    while (true) {
      try {
        journal = Journal.open(JournalConfig.of(config.journal().dir(), config.workerId()));
      } catch (JournalOwnedException e) {
        log.error(
            "journal.owned",
            "dir",
            config.journal().dir(),
            "owner_pid",
            e.ownerPid().isPresent() ? e.ownerPid().getAsLong() : "unknown",
            "problem",
            e.getMessage());
        return ExitCode.TEMPFAIL.code();
      } catch (RuntimeException e) {
        log.error(
            "journal.unreadable",
            "dir",
            config.journal().dir(),
            "problem",
            String.valueOf(e.getMessage()));
        return ExitCode.IOERR.code();
      }
      if (journal.status() == Journal.Status.OPEN) {
        log.info("journal.open", "dir", config.journal().dir(), "report", journal.report());
        return ExitCode.OK.code();
      }
      log.error(
          "journal.recovery_required",
          "dir",
          config.journal().dir(),
          "report",
          journal.report(),
          "action",
          "inspect with 'ql3-worker journal inspect', resolve with 'ql3-worker journal resolve'; no register, no pull");
      journal.close();
      journal = null;
      if (!env.waitForRecovery()) {
        return ExitCode.CONFIG.code();
      }
      // Release the directory so an operator can resolve it, then look again.
      try {
        if (signals.get() > 0) {
          return ExitCode.CONFIG.code();
        }
        Thread.sleep(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCode.CONFIG.code();
      }
    }
  }

  // ------------------------------------------------------------------ the step

  private void step(long now) {
    int signalCount = signals.get();
    if (signalCount >= 1 && phase != Phase.DRAINING && phase != Phase.STOPPED) {
      beginDrain(now);
    }
    if (signalCount >= 2 && !runsCancelled) {
      runsCancelled = true;
      log.warn("runs.cancel", "reason", "second signal");
      plane.cancelAll(SHUTDOWN_NOW);
    }

    if (reloadRequested.getAndSet(false)) {
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
          phase = Phase.RUNNING;
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
        // nothing: the main thread is closing down
      }
    }
    writeStatus(now);
    notifySystemd(now);
  }

  /**
   * Readiness once the journal is reconciled and a session registered (or the ingress could not be
   * reached yet: retrying), the status when it changed, and the watchdog ping: this runs at the end
   * of a step that completed, so a hung or always-failing cadence stops the pings.
   */
  private void notifySystemd(long now) {
    String status = serviceStatus();
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
  private String serviceStatus() {
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

  /**
   * SIGHUP on the cadence thread: credentials re-read now, status and metrics files reopened and
   * rewritten.
   */
  private void reload() {
    var c = credentials.checkNow();
    statusFile = config.statusFile().map(StatusFile::new).orElse(null);
    metricsFile = config.metricsFile().map(MetricsFile::new).orElse(null);
    statusWritten = false;
    metricsWritten = false;
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

  private Object lastCredentials;

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
    phase = Phase.DRAINING;
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
      session.disconnect();
      return;
    }
    if (s == SessionState.REGISTERING || session.requestOutstanding()) {
      return;
    }
    if (!s.isLive()) {
      phase = Phase.STOPPED;
      log.info("agent.stopped", "session_state", s);
      writeStatus(now);
      stopped.countDown();
    }
  }

  private void onStepFailure(Throwable e) {
    if (e instanceof JournalFailedException || e.getCause() instanceof JournalFailedException) {
      log.error(
          "journal.failed",
          "problem",
          String.valueOf(e.getMessage()),
          "action",
          "stopping: nothing more can be recorded; runs in flight will be reported uncertain after restart");
      exitCode.set(ExitCode.IOERR.code());
      phase = Phase.STOPPED;
      stopped.countDown();
      return;
    }
    log.error("agent.step_failed", "problem", String.valueOf(e), "error", e);
  }

  private LifecyclePhase lifecycle() {
    if (phase == Phase.RECONCILING) {
      return LifecyclePhase.RECONCILING;
    }
    if (phase == Phase.DRAINING || phase == Phase.STOPPED || session.drainRequested()) {
      return LifecyclePhase.DRAINING;
    }
    return switch (session.state()) {
      case REGISTERING -> LifecyclePhase.REGISTERING;
      case ACTIVE -> LifecyclePhase.ACTIVE;
      case DRAINING -> LifecyclePhase.DRAINING;
      case OFFLINE -> LifecyclePhase.OFFLINE;
      default -> LifecyclePhase.NO_USABLE_SESSION;
    };
  }

  private long lastStatusAt;
  private boolean statusWritten;

  private long lastMetricsAt;
  private boolean metricsWritten;

  private void writeStatus(long now) {
    if (statusFile == null && metricsFile == null) {
      return;
    }
    // At most about once a second, and always on the last step.
    if (statusWritten
        && phase != Phase.STOPPED
        && now - lastStatusAt < StatusFile.WRITE_INTERVAL.toNanos()) {
      return;
    }
    lastStatusAt = now;
    statusWritten = true;
    var capacity = oracle.compute(lifecycle());
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

  private void closeQuietly() {
    Cadence c = cadence;
    if (c != null) {
      c.close();
    }
    if (journal != null) {
      try {
        journal.close();
      } catch (RuntimeException e) {
        // The journal's directory failed under it (a device error turns ext4 read-only: the owner
        // file cannot be removed). The lock goes with the process; what was forced stays forced.
        // A journal I/O failure is exit 74, never an uncaught exception (exit 1).
        log.error(
            "journal.release_failed",
            "dir",
            config.journal().dir(),
            "problem",
            String.valueOf(e.getMessage()));
        exitCode.compareAndSet(ExitCode.OK.code(), ExitCode.IOERR.code());
      }
      var stats =
          journal.stats(); // group commits over this process's life: forces per run in benchmarks
      log.info(
          "journal.released",
          "dir",
          config.journal().dir(),
          "records",
          stats.records(),
          "forces",
          stats.forces());
    }
    if (client != null) {
      client.close();
      log.info("connection.closed");
    }
    if (isolation != null) {
      isolation.close();
    }
    if (executionClock != null) {
      executionClock.close();
    }
    systemd.close();
  }

  // ------------------------------------------------------------------ listeners

  private final class SessionEvents implements SessionListener {
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
        ingressFailed = false;
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
      ingressFailed = true;
      log.warn("session.request_failed", "operation", operation, "result", what);
    }
  }

  private final class PlaneEvents implements PlaneListener {
    @Override
    public void runStarted(String runId, long attempt, OptionalLong pid) {
      log.info(
          "run.started",
          "run",
          runId,
          "attempt",
          attempt,
          "pid",
          pid.isPresent() ? pid.getAsLong() : null);
    }

    @Override
    public void runFinished(String runId, long attempt, RunResult result) {
      metrics.runOutcome(result.outcome().name());
      RunUsage used = usage.take(runId, attempt);
      log.info(
          "run.finished",
          "run",
          runId,
          "attempt",
          attempt,
          "outcome",
          result.outcome(),
          "exit_code",
          result.exitCode(),
          "duration_ms",
          result.durationMs(),
          "failure",
          result.failure() == null ? null : result.failure().code(),
          "cpu_ms",
          used.cpuMicros().isPresent() ? used.cpuMicros().getAsLong() / 1000 : null,
          "peak_memory_bytes",
          used.peakMemoryBytes().isPresent() ? used.peakMemoryBytes().getAsLong() : null);
    }

    @Override
    public void offerRejected(String runId, long attempt, String why) {
      log.warn("offer.rejected", "run", runId, "attempt", attempt, "why", why);
    }

    @Override
    public void offerDeduplicated(String runId, long attempt) {
      log.info("offer.deduplicated", "run", runId, "attempt", attempt);
    }

    @Override
    public void completionDelivered(String runId, long attempt, String disposition) {
      log.info(
          "completion.delivered", "run", runId, "attempt", attempt, "disposition", disposition);
    }

    @Override
    public void completionSuperseded(String runId, long attempt) {
      log.warn("completion.superseded", "run", runId, "attempt", attempt);
    }

    @Override
    public void completionRetry(String runId, long attempt, String why) {
      ingressFailed = true;
      log.warn("completion.retry", "run", runId, "attempt", attempt, "result", why);
    }

    @Override
    public void completionRefused(String runId, long attempt, String why) {
      log.error(
          "completion.refused",
          "run",
          runId,
          "attempt",
          attempt,
          "result",
          why,
          "action",
          "kept; retried later");
    }

    @Override
    public void completionUndeliverable(String runId, long attempt, String why) {
      metrics.completionUndeliverable();
      log.error(
          "completion.undeliverable",
          "run",
          runId,
          "attempt",
          attempt,
          "result",
          why,
          "action",
          "settled as undeliverable in the journal (no resend can change this answer); the server"
              + " reclaims the run by its lease");
    }

    @Override
    public void executionDrift(Drift drift) {
      session.drifted(drift);
    }

    @Override
    public void pullOutcomeUnrecoverable(String why) {
      log.warn("pull.unrecoverable", "why", why);
      session.failClosed(why);
    }

    @Override
    public void executionAnswered(Operation op, Answer<?> answer) {
      log.warn("execution.refused", "operation", op.wireName(), "result", answer);
      session.executionAnswered(op, answer);
    }
  }
}
