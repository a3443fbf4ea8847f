package io.ql3.worker.runtime;

import io.ql3.worker.capacity.CapacityLimits;
import io.ql3.worker.capacity.CapacityOracle;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.runtime.WorkerAgent.Phase;
import io.ql3.worker.runtime.boot.CredentialWait;
import io.ql3.worker.runtime.cadence.Cadence;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.ProxySelection;
import io.ql3.worker.runtime.exec.ExecutorConfigurationException;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.SystemExecutionClock;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.IsolationException;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.metrics.MetricsFile;
import io.ql3.worker.runtime.metrics.TimedCalls;
import io.ql3.worker.runtime.plane.ExecutionPlane;
import io.ql3.worker.runtime.plane.PlaneIngress;
import io.ql3.worker.runtime.plane.PlaneSettings;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionInputs;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The agent's parts, opened in the start-up order and closed in the shutdown order ({@link
 * WorkerAgent} says both): {@link #start()} builds every part and wires them together, ending with
 * the cadence built; {@link #runCadence} runs it on the caller's thread until the agent stopped;
 * {@link #closeQuietly()} stops the cadence (if it still runs), releases the journal, closes the
 * connection, the isolation and the execution clock. A start-up step that cannot be done logs what
 * to fix and returns its {@link ExitCode}.
 */
final class AgentParts {
  private final AgentConfig config;
  private final WorkerAgent.Environment env;
  private final EventLog log;
  private final SystemdService systemd;
  private final AgentControls controls;
  private final AgentMetrics metrics;
  private final RunUsageBook usage;
  private final AgentReports reports;
  private final AgentStep step;

  // Built by start(); used only on the cadence thread afterwards.
  private CredentialProvider credentials;
  private IngressClient client;
  private Journal journal;
  private SystemExecutionClock executionClock;
  private CapacityOracle oracle;
  private SessionCoordinator session;
  private ExecutionPlane plane;
  private volatile Cadence cadence; // read by wakeCadence() from signal and transport threads
  private Isolation isolation;

  AgentParts(
      AgentConfig config,
      WorkerAgent.Environment env,
      AgentControls controls,
      AgentMetrics metrics,
      AgentReports reports,
      AgentStep step) {
    this.config = config;
    this.env = env;
    this.log = env.log();
    this.systemd = env.systemd();
    this.controls = controls;
    this.metrics = metrics;
    this.usage = new RunUsageBook(metrics);
    this.reports = reports;
    this.step = step;
  }

  /** Wakes the cadence once it exists (from any thread). */
  void wakeCadence() {
    Cadence c = cadence;
    if (c != null) {
      c.wake();
    }
  }

  // ------------------------------------------------------------------ start-up

  int start() {
    BuildInfo build = BuildInfo.load();
    reports.buildLabels(
        new MetricsFile.Build(
            build.version(),
            build.revision(),
            System.getProperty("java.version"),
            config.profile().wireName()));
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
        System.getProperty("java.version"),
        "java_home",
        System.getProperty("java.home"));
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
      step.enter(Phase.WAITING_FOR_CREDENTIALS);
      var loaded =
          new CredentialWait(
                  () ->
                      CredentialProvider.load(
                          files,
                          config.workerId(),
                          env.wallClock(),
                          settings,
                          env.credentialCheck()),
                  files,
                  env.ticker(),
                  reports::waitingForCredentials,
                  () -> controls.signals.get() > 0,
                  () -> controls.reloadRequested.getAndSet(false))
              .await();
      if (loaded.isEmpty()) {
        log.info(
            "agent.stopped",
            "phase",
            step.phase(),
            "why",
            "stopped while waiting for usable credentials");
        step.enter(Phase.STOPPED);
        return ExitCode.OK.code();
      }
      credentials = loaded.get();
      step.enter(Phase.RECONCILING);
      ProxySelection route;
      try {
        route = ProxySelection.select(config, System.getenv());
      } catch (io.ql3.worker.runtime.config.ConfigException e) {
        log.error("config.invalid", "key", "HTTPS_PROXY", "problem", e.getMessage());
        return ExitCode.CONFIG.code();
      }
      TransportSettings transport = route.transportSettings(config.ingress(), build.version());
      log.info(
          "ingress.route",
          "ingress",
          config.ingress().host() + ":" + config.ingress().port(),
          "proxy",
          route.proxy().map(Object::toString).orElse("none"),
          "source",
          route.source(),
          "connect_timeout_ms",
          transport.connectTimeout().toMillis());
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
    JournalStartup journalStartup =
        new JournalStartup(config, log, env.waitForRecovery(), controls.signals);
    int journalCode = journalStartup.open();
    if (journalCode != ExitCode.OK.code()) {
      return journalCode;
    }
    journal = journalStartup.journal();
    // Owned: the TLS handshake overlaps the isolation's start-up and the reconciliation (no request
    // before the register, which waits for both: contract section 7). Not before: a process that
    // does not get the journal (another one owns it) never connects as this worker.
    client.connectAhead();

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
    reports.isolationSummary(isolation.summary());

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
    Runnable wake = this::wakeCadence;
    SessionEvents sessionEvents = new SessionEvents(log, journal, reports);
    session =
        new SessionCoordinator(
            SessionCoordinator.IngressClient.of(client, new TimedCalls(metrics)),
            capability,
            new SessionInputs() {
              @Override
              public int availableSlots() {
                return oracle.compute(step.lifecycle()).availableSlots();
              }

              @Override
              public io.ql3.worker.contract.RunCounts runCounts() {
                return plane.runCounts();
              }
            },
            sessionEvents,
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
            ahead -> oracle.compute(step.lifecycle(), ahead).availableSlots(),
            new PlaneEvents(log, metrics, usage, reports, session),
            wake,
            random);
    sessionEvents.attach(session, plane);
    step.attach(credentials, session, plane);
    reports.attach(step, credentials, client, oracle, session, plane);
    reports.openFiles();

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

    // 5. The single cadence (run by runCadence): it delivers the reconciled completions, then
    // registers.
    cadence =
        new Cadence(
            "ql3-cadence",
            config.cadence(),
            env.ticker(),
            step::step,
            (t, e) -> step.onStepFailure(e));
    return ExitCode.OK.code();
  }

  /**
   * Runs the cadence on the calling thread (start-up's, which would otherwise only wait for the
   * stop: one thread fewer) until {@code done} after a step, or until it is closed.
   */
  void runCadence(BooleanSupplier done) {
    cadence.runHere(done);
  }

  // ------------------------------------------------------------------ shutdown

  void closeQuietly() {
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
        controls.exitCode.compareAndSet(ExitCode.OK.code(), ExitCode.IOERR.code());
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
}
