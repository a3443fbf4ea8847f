package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
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
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.ProcessExecutorSettings;
import io.ql3.worker.runtime.exec.SystemExecutionClock;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.IngressResult;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The real execution plane on a real journal (files, fsync) and the real transport, against the
 * real reference control plane over TLS 1.3. The plane is driven by hand: the test passes the
 * monotonic time and the pull permit; a session is registered directly with the real client. {@link
 * #ingress} is the {@link PlaneIngress} seam: it records every call and lets a test decide how a
 * call reaches the transport.
 */
final class PlaneHarness implements AutoCloseable {
  static final String WORKER = "edge-0001";
  static final long MS = 1_000_000L;

  ControlPlaneServer cp;
  final Path pkiDir;
  final Alpn alpn;
  final IngressClient client;
  final Journal journal;
  final ExecutionPlane plane;
  final SystemExecutionClock clock = new SystemExecutionClock();
  final Semaphore wakes = new Semaphore(0);
  final List<String> events = Collections.synchronizedList(new ArrayList<>());
  final Seam ingress;
  final Capability capability;
  long now = 1_000 * MS;

  /** The free slots the plane is told (the capacity oracle's answer); 1 unless a test says. */
  volatile int freeSlots = 1;

  /**
   * What the plane asks for free slots: {@link #freeSlots}, unless a test puts a real oracle here.
   */
  volatile FreeSlots slots = ahead -> freeSlots;

  PlaneHarness(Path dir, Alpn alpn, List<String> executors, ClassLoader executorLoader)
      throws Exception {
    DevPki pki = new DevPki(dir.resolve("pki"), Duration.ofDays(30));
    pki.create(List.of(WORKER));
    this.pkiDir = pki.dir();
    this.alpn = alpn;
    cp = startServer(0);
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
    ExecutorRegistry registry =
        ExecutorRegistry.load(executors, ProcessExecutorSettings.defaults(), executorLoader);
    CapabilityBuilder b =
        new CapabilityBuilder()
            .agent("1.0.0", "0".repeat(40))
            .architecture("amd64")
            .os("linux")
            .runtime("java", "17")
            .limits(2, 65536, 1)
            .profile(Profile.EDGE);
    for (var e : registry.advertised()) {
      b.executor(e.name(), e.version());
    }
    capability = b.build();
    journal = Journal.open(JournalConfig.of(dir.resolve("journal"), WORKER));
    ingress = new Seam(client);
    plane =
        new ExecutionPlane(
            journal,
            ingress,
            registry,
            OfferPolicy.of(capability),
            new PlaneSettings(
                dir.resolve("runs"),
                1,
                Duration.ofSeconds(55),
                Duration.ofMillis(100),
                Duration.ofSeconds(1),
                4),
            new Uuid7Generator(Clock.systemUTC(), new Random(7)),
            clock,
            ahead -> slots.behind(ahead),
            new PlaneListener() {
              @Override
              public void runStarted(String runId, long attempt, java.util.OptionalLong pid) {
                events.add("started " + runId + " " + attempt);
              }

              @Override
              public void offerDeduplicated(String runId, long attempt) {
                events.add("deduplicated " + runId + " " + attempt);
              }

              @Override
              public void completionDelivered(String runId, long attempt, String disposition) {
                events.add("delivered " + runId + " " + attempt + " " + disposition);
              }

              @Override
              public void pullOutcomeUnrecoverable(String why) {
                events.add("unrecoverable");
              }

              @Override
              public void executionAnswered(io.ql3.worker.contract.Operation op, Answer<?> answer) {
                events.add("refused " + answer.kind());
              }

              @Override
              public void completionUndeliverable(String runId, long attempt, String why) {
                events.add("undeliverable " + runId + " " + attempt);
              }

              @Override
              public void executionDrift(io.ql3.worker.contract.Drift drift) {
                events.add("drift");
              }
            },
            wakes::release,
            new Random(42));
  }

  private ControlPlaneServer startServer(int port) throws Exception {
    return ControlPlaneServer.start(
        new ControlPlaneServer.Config(
            pkiDir,
            "127.0.0.1",
            port,
            0,
            alpn,
            new Settings(10_000, 120_000, 120_000, 500, 64),
            Clock.systemUTC(),
            1,
            EventLog.quiet(),
            false));
  }

  /** The control plane restarts on the same address and PKI, having lost everything it knew. */
  void restartServer() throws Exception {
    int port = cp.ingressAddress().getPort();
    cp.close();
    cp = startServer(port);
  }

  /**
   * Registers a session with the real client, journals it, and returns the permit to pull under.
   */
  SessionLease register(SessionId id) {
    IngressResult<RegisterResponse> r =
        client.register(id, RegisterRequest.of(capability, 1)).join();
    assertThat(r.kind()).as(r.toString()).isEqualTo(io.ql3.worker.contract.AnswerKind.SUCCESS);
    journal.append(
        new io.ql3.worker.journal.JournalRecord.SessionRegistered(
            id.value(), r.value().generation()));
    return new SessionLease(id, r.value().generation());
  }

  /**
   * A harness whose server speaks h2 and http/1.1, with the counting executor (found through
   * ServiceLoader) and its record of prepared runs cleared.
   */
  static PlaneHarness withCountingExecutor(Path dir) throws Exception {
    CountingExecutor.PREPARED.clear();
    return new PlaneHarness(
        dir, Alpn.H2_AND_HTTP1, List.of("counting"), CountingExecutor.loader(dir));
  }

  /** Registers a new session whose id comes from a generator with this seed. */
  SessionLease registerNew(int seed) {
    return register(new Uuid7Generator(Clock.systemUTC(), new Random(seed)).nextSessionId());
  }

  /**
   * Submits one run of this executor to the control plane, with this runId (null: the server picks
   * one); returns its runId.
   */
  String submit(String executor, String runId) {
    return cp.controlPlane()
        .submit(
            new RunSubmission(
                1,
                executor,
                "{}".getBytes(StandardCharsets.UTF_8),
                60_000,
                WORKER,
                Map.of(),
                runId,
                null,
                0))
        .runIds()
        .get(0);
  }

  void tick(SessionLease permit) {
    plane.tick(now, Optional.ofNullable(permit), false);
  }

  /** Waits for an answer (or a finished run) that must arrive, then applies it with a tick. */
  void answer(SessionLease permit) throws InterruptedException {
    assertThat(wakes.tryAcquire(10, TimeUnit.SECONDS))
        .as("an answer arrives; calls: " + ingress.calls)
        .isTrue();
    tick(permit);
  }

  void advance(long ms) {
    now += ms * MS;
  }

  @Override
  public void close() {
    client.close();
    cp.close();
    closeJournal();
    clock.close();
  }

  private boolean journalClosed;

  void closeJournal() {
    if (!journalClosed) {
      journalClosed = true;
      journal.close();
    }
  }

  /** The PlaneIngress seam around the real client: records calls; a test may reroute long polls. */
  static final class Seam implements PlaneIngress {
    final IngressClient client;
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    /** The canonical bytes of every completion sent, in order. */
    final List<byte[]> completions = Collections.synchronizedList(new ArrayList<>());

    /** The answer of every completion sent, in order. */
    final List<CompletableFuture<Answer<CompleteResponse>>> completionAnswers =
        Collections.synchronizedList(new ArrayList<>());

    /** How a long poll reaches the transport (default: the real h2-only long poll). */
    volatile Function<Object[], CompletableFuture<IngressResult<PullResponse>>> longPollRoute;

    Seam(IngressClient client) {
      this.client = client;
    }

    @Override
    public CompletableFuture<Answer<PullResponse>> pull(SessionId s, PullRequest r, OfferPolicy p) {
      calls.add("pull " + r.pullId().value() + " waitMs=" + r.waitMs());
      return client.pull(s, r, p).thenApply(IngressResult::answer);
    }

    @Override
    public CompletableFuture<Answer<PullResponse>> longPoll(
        SessionId s, PullRequest r, OfferPolicy p) {
      calls.add("longPoll " + r.pullId().value() + " waitMs=" + r.waitMs());
      var route = longPollRoute;
      return (route != null ? route.apply(new Object[] {s, r, p}) : client.longPoll(s, r, p))
          .thenApply(IngressResult::answer);
    }

    @Override
    public CompletableFuture<Answer<CompleteResponse>> complete(
        SessionId s, RunId run, CompleteRequest r) {
      calls.add("complete " + run.value() + " " + r.attempt() + " session " + s.value());
      completions.add(r.toCanonicalBytes());
      CompletableFuture<Answer<CompleteResponse>> answer =
          client.complete(s, run, r).thenApply(IngressResult::answer);
      completionAnswers.add(answer);
      return answer;
    }

    @Override
    public void abortPulls() {
      client.abortPulls();
    }

    /**
     * How many more times to report {@code h2} whatever the transport says: the transport's report
     * of the last connection's protocol, when that connection was h2 and has just dropped.
     */
    final java.util.concurrent.atomic.AtomicInteger staleH2 =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public Optional<Protocol> protocol() {
      return staleH2.getAndUpdate(n -> Math.max(0, n - 1)) > 0
          ? Optional.of(Protocol.H2)
          : Protocol.of(client.protocol());
    }
  }
}
