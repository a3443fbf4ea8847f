package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.RunSubmission;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.runtime.exec.ExecutionClock;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.ProcessExecutorSettings;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.metrics.TimedCalls;
import io.ql3.worker.runtime.session.SessionCoordinator;
import io.ql3.worker.runtime.session.SessionInputs;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.runtime.session.SessionListener;
import io.ql3.worker.runtime.session.SessionState;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offer-to-start path costs exactly ONE journal force per pull answer, and that force covers
 * "offer accepted", "run started" and "pull closed" of every offer before any of them is launched.
 * Real TLS 1.3 to the real reference control plane, a real journal on disk; the plane is driven by
 * hand (ticks at chosen times), so nothing here depends on timing: the waits are for answers that
 * must arrive.
 */
class OfferAcceptanceGroupCommitTest {
  static final String WORKER = "node-0001";
  static final long MS = 1_000_000L;

  @TempDir Path dir;
  ControlPlaneServer cp;
  IngressClient client;
  Journal journal;
  final Semaphore wakes = new Semaphore(0);
  long now = 1_000 * MS;

  @BeforeEach
  void start() throws Exception {
    DevPki pki = new DevPki(dir.resolve("pki"), Duration.ofDays(30));
    pki.create(List.of(WORKER));
    Clock serverClock = Clock.fixed(Instant.parse("2026-11-30T00:00:00Z"), ZoneOffset.UTC);
    cp =
        ControlPlaneServer.start(
            new ControlPlaneServer.Config(
                pki.dir(),
                "127.0.0.1",
                0,
                0,
                Alpn.H2_AND_HTTP1,
                new Settings(30_000, 90_000, 90_000, 500, 64),
                serverClock,
                1,
                EventLog.quiet(),
                false));
    Path w = pki.workerDir(WORKER);
    CredentialProvider credentials =
        CredentialProvider.load(
            new CredentialFiles(
                w.resolve("client.crt"), w.resolve("client.key"), pki.caCert(), w.resolve("token")),
            WORKER,
            Clock.systemUTC(),
            CredentialProvider.Settings.defaults());
    client =
        IngressClient.open(
            new IngressEndpoint("127.0.0.1", cp.ingressAddress().getPort()),
            WorkerId.of(WORKER),
            credentials,
            TransportSettings.defaults("test"));
    journal = Journal.open(JournalConfig.of(dir.resolve("journal"), WORKER));
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cp != null) {
      cp.close();
    }
    if (journal != null) {
      journal.close();
    }
  }

  @Test
  void onePullAnswerWithSeveralOffersIsOneForceBeforeAnyLaunch() throws Exception {
    SessionLease lease = register();
    journal.append(
        new JournalRecord.SessionRegistered(lease.sessionId().value(), lease.generation()));
    cp.controlPlane()
        .submit(
            new RunSubmission(
                3,
                "noop",
                "{}".getBytes(StandardCharsets.UTF_8),
                60_000,
                WORKER,
                Map.of(),
                null,
                null,
                0));

    AtomicLong forcesBeforeAnswer = new AtomicLong(-1);
    List<String> seenAtLaunch = new ArrayList<>();
    PlaneListener listener =
        new PlaneListener() {
          @Override
          public void runStarted(String runId, long attempt, OptionalLong pid) {
            // Called right after launch: everything must already be durable, with a single force.
            long forces = journal.stats().forces() - forcesBeforeAnswer.get();
            List<String> started =
                journal.facts().running().stream().map(RunFact::key).map(k -> k.runId()).toList();
            seenAtLaunch.add(
                runId
                    + " forces="
                    + forces
                    + " startedDurable="
                    + started.contains(runId)
                    + " pullsOpen="
                    + journal.facts().openPulls().size());
          }
        };
    ExecutionPlane plane = plane(listener);

    plane.tick(now, Optional.of(lease), false); // reserves (one force) and sends the pull
    assertThat(plane.pullOutstanding()).isTrue();
    assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("the pull is answered").isTrue();
    forcesBeforeAnswer.set(journal.stats().forces());
    long recordsBefore = journal.stats().records();

    now += MS;
    plane.tick(now, Optional.empty(), false); // no permit: accept and launch only, no new pull

    assertThat(seenAtLaunch)
        .hasSize(3)
        .allSatisfy(s -> assertThat(s).endsWith("forces=1 startedDurable=true pullsOpen=0"));
    // 3 x (offer accepted + run started) + pull closed, all in that one force.
    assertThat(journal.stats().records() - recordsBefore).isEqualTo(7);
    assertThat(journal.stats().forces() - forcesBeforeAnswer.get()).isEqualTo(1);
  }

  private ExecutionPlane plane(PlaneListener listener) throws Exception {
    ExecutorRegistry executors =
        ExecutorRegistry.load(
            List.of("noop"), ProcessExecutorSettings.defaults(), getClass().getClassLoader());
    PlaneSettings settings =
        new PlaneSettings(
            dir.resolve("work"),
            8,
            Duration.ofSeconds(20),
            Duration.ofSeconds(1),
            Duration.ofSeconds(8),
            4);
    return new ExecutionPlane(
        journal,
        PlaneIngress.of(client, new TimedCalls(new AgentMetrics())),
        executors,
        OfferPolicy.of(capability()),
        settings,
        new Uuid7Generator(Clock.systemUTC(), new Random(7)),
        new FixedClock(),
        ahead -> 16,
        listener,
        wakes::release,
        new Random(42));
  }

  private static Capability capability() throws Exception {
    return new CapabilityBuilder()
        .agent("1.0.0", "0".repeat(40))
        .architecture("amd64")
        .os("linux")
        .runtime("java", "17")
        .executor("noop", "1")
        .limits(16, 65536, 8)
        .profile(Profile.NODE)
        .build();
  }

  private SessionLease register() throws Exception {
    Semaphore answered = new Semaphore(0);
    SessionCoordinator coordinator =
        new SessionCoordinator(
            SessionCoordinator.IngressClient.of(client, new TimedCalls(new AgentMetrics())),
            capability(),
            new SessionInputs() {
              @Override
              public int availableSlots() {
                return 16;
              }

              @Override
              public RunCounts runCounts() {
                return new RunCounts(0, 0);
              }
            },
            new SessionListener() {},
            new Uuid7Generator(Clock.systemUTC(), new Random(3)),
            answered::release,
            Duration.ofSeconds(1),
            Duration.ofSeconds(8),
            new Random(5));
    coordinator.register(now);
    assertThat(answered.tryAcquire(30, TimeUnit.SECONDS)).as("register is answered").isTrue();
    coordinator.tick(now);
    assertThat(coordinator.state()).isEqualTo(SessionState.ACTIVE);
    return coordinator.pullPermit(now).orElseThrow();
  }

  /** Executors of this test end at once: no timer is ever scheduled. */
  private static final class FixedClock implements ExecutionClock {
    @Override
    public Instant now() {
      return Instant.parse("2026-11-30T00:00:00Z");
    }

    @Override
    public long nanoTime() {
      return 0;
    }

    @Override
    public Scheduled schedule(Duration delay, Runnable task) {
      throw new AssertionError("no timer expected");
    }
  }
}
