package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.NoopSpec;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.OpaqueSpec;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.journal.Settlement;
import io.ql3.worker.runtime.answer.Reaction;
import io.ql3.worker.runtime.answer.Reactions;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.ProcessExecutorSettings;
import io.ql3.worker.runtime.exec.SystemExecutionClock;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The execution plane on a real journal against a scripted ingress (the public {@link Answer} type
 * is the seam) and a hand-driven clock: no TLS, no server. The gate is a fake session that applies
 * the reaction table's session rows, as the coordinator does. Each test is one defect's rule.
 */
class PlaneAnswersTest {
  static final long MS = 1_000_000L;
  static final String WORKER = "edge-0001";

  /**
   * Scripted answers per operation, in order; with nothing scripted the request stays on the wire.
   */
  static final class ScriptedIngress implements PlaneIngress {
    final Deque<CompletableFuture<Answer<PullResponse>>> pulls = new ArrayDeque<>();
    final Deque<CompletableFuture<Answer<CompleteResponse>>> completes = new ArrayDeque<>();
    final List<PullRequest> pullsSent = new ArrayList<>();
    final List<String> completesSent = new ArrayList<>();
    CompletableFuture<Answer<PullResponse>> lastPull;
    CompletableFuture<Answer<CompleteResponse>> lastComplete;

    @Override
    public CompletableFuture<Answer<PullResponse>> pull(SessionId s, PullRequest r, OfferPolicy p) {
      pullsSent.add(r);
      lastPull = pulls.isEmpty() ? new CompletableFuture<>() : pulls.poll();
      return lastPull;
    }

    @Override
    public CompletableFuture<Answer<CompleteResponse>> complete(
        SessionId s, RunId run, CompleteRequest r) {
      completesSent.add(run.value());
      lastComplete = completes.isEmpty() ? new CompletableFuture<>() : completes.poll();
      return lastComplete;
    }

    @Override
    public void abortPulls() {}

    @Override
    public Optional<Protocol> protocol() {
      return Optional.of(Protocol.HTTP_1_1);
    }
  }

  /** The session rows of the reaction table, as the coordinator applies them. */
  final class FakeSession implements PullGate, PlaneListener {
    boolean suspended;
    boolean ended;
    boolean pullsStopped;

    @Override
    public Optional<SessionLease> permit(long now) {
      return suspended || ended || pullsStopped ? Optional.empty() : Optional.of(lease);
    }

    @Override
    public boolean sessionEnded() {
      return ended;
    }

    @Override
    public void executionAnswered(Operation op, Answer<?> answer) {
      Reaction r = Reactions.of(op, answer.kind());
      events.add("answered " + op.wireName() + " " + answer.kind());
      switch (r) {
        case SUSPEND -> suspended = true;
        case FENCE, RESEND_AND_FAIL_CLOSED -> ended = true;
        case STOP_PULLING, SETTLE_UNDELIVERABLE_STOP_PULLING -> pullsStopped = true;
        default -> {}
      }
    }

    @Override
    public void executionDrift(io.ql3.worker.contract.Drift drift) {
      ended = true;
    }

    @Override
    public void pullOutcomeUnrecoverable(String why) {
      ended = true;
      events.add("unrecoverable");
    }

    @Override
    public void runStarted(String runId, long attempt, java.util.OptionalLong pid) {
      events.add("started " + runId);
    }

    @Override
    public void completionUndeliverable(String runId, long attempt, String why) {
      events.add("undeliverable " + runId);
    }

    /** A bug while an answer's offers are taken in, played here by the rejection's report. */
    boolean failOnOfferRejected;

    @Override
    public void offerRejected(String runId, long attempt, String why) {
      if (failOnOfferRejected) {
        throw new IllegalStateException("scripted bug while taking in " + runId);
      }
    }
  }

  @TempDir Path dir;
  final ScriptedIngress ingress = new ScriptedIngress();
  final List<String> events = Collections.synchronizedList(new ArrayList<>());
  final FakeSession session = new FakeSession();
  final SystemExecutionClock clock = new SystemExecutionClock();
  final Uuid7Generator ids = new Uuid7Generator(Clock.systemUTC(), new Random(3));
  Journal journal;
  ExecutionPlane plane;
  SessionLease lease;
  int freeSlots = 1;
  long now = 1_000 * MS;

  @BeforeEach
  void start() throws Exception {
    BrittleExecutor.EVENTS.clear();
    journal = Journal.open(JournalConfig.of(dir.resolve("journal"), WORKER));
    lease = new SessionLease(ids.nextSessionId(), 7);
    journal.append(new JournalRecord.SessionRegistered(lease.sessionId().value(), 7));
  }

  /** Builds the plane (after any seeding of the journal) and reconciles it. */
  void plane() throws Exception {
    ExecutorRegistry registry =
        ExecutorRegistry.load(
            List.of("noop", "brittle"),
            ProcessExecutorSettings.defaults(),
            BrittleExecutor.loader(dir));
    plane =
        new ExecutionPlane(
            journal,
            ingress,
            registry,
            OfferPolicy.CONTRACT,
            ScriptedPlanes.settings(dir),
            ids,
            clock,
            settling -> freeSlots,
            session,
            () -> {},
            new Random(42));
    plane.reconcile();
  }

  @AfterEach
  void stop() {
    journal.close();
    clock.close();
  }

  void tick() {
    plane.tick(now, session);
  }

  void advance(long ms) {
    now += ms * MS;
  }

  /** A result recorded before this start: its completion is delivered first. */
  void seedPendingCompletion(String run) {
    ScriptedPlanes.seedPendingCompletion(journal, lease, run);
  }

  static <T> CompletableFuture<Answer<T>> answered(Answer<T> a) {
    return CompletableFuture.completedFuture(a);
  }

  static <T> Answer<T> refused(AnswerKind kind) {
    return Answer.refused(kind, "scripted");
  }

  static Offer noopOffer(String run) {
    return Offer.of(1, "k-" + run, new RunId(run), NoopSpec.INSTANCE, 60_000);
  }

  static Offer brittleOffer(String run, boolean boom) {
    return Offer.of(
        1,
        "k-" + run,
        new RunId(run),
        new OpaqueSpec(
            "brittle",
            new JsonValue.JsonObject(boom ? Map.of("boom", JsonValue.JsonBoolean.TRUE) : Map.of())),
        60_000);
  }

  /** The answer to the last pull sent, with these offers. */
  Answer<PullResponse> offers(Offer... offers) {
    PullRequest sent = ingress.pullsSent.get(ingress.pullsSent.size() - 1);
    return Answer.success(new PullResponse(7, 0, List.of(offers), sent.pullId()));
  }

  Answer<CompleteResponse> accepted(String run) {
    return Answer.success(new CompleteResponse(1, Disposition.ACCEPTED, new RunId(run)));
  }

  /**
   * A completion answer that suspends the session (credentials refused) stops a pull that the same
   * step would send later: the permit is read when the pull is sent.
   */
  @Test
  void aCompletionAnswerThatSuspendsTheSessionStopsAPullLaterInTheSameStep() throws Exception {
    seedPendingCompletion("done-1");
    plane();
    freeSlots = 0;
    ingress.completes.add(answered(refused(AnswerKind.CREDENTIAL_REJECTED)));
    tick(); // the completion goes out (its answer is already there); no slot, no pull
    freeSlots = 1;
    tick(); // harvests the refusal: the session is suspended before the pull step
    assertThat(session.suspended).isTrue();
    assertThat(ingress.pullsSent).isEmpty();
  }

  /**
   * A pull answer harvested in the same step as a fence (a drifting completion answer) is not
   * executed: its offers are completed as never started.
   */
  @Test
  void aPullAnswerHarvestedInTheStepOfAFenceIsCompletedNotStarted() throws Exception {
    seedPendingCompletion("done-1");
    plane();
    tick(); // completion and pull both on the wire
    assertThat(ingress.pullsSent).hasSize(1);
    ingress.lastComplete.complete(refused(AnswerKind.DRIFT));
    ingress.lastPull.complete(offers(noopOffer("r1")));
    tick();
    assertThat(session.ended).isTrue();
    assertThat(events).doesNotContain("started r1");
    awaitJournal(
        () ->
            journal.facts().pendingCompletions().stream()
                .anyMatch(f -> f.key().runId().equals("r1")));
    RunFact r1 =
        journal.facts().pendingCompletions().stream()
            .filter(f -> f.key().runId().equals("r1"))
            .findFirst()
            .orElseThrow();
    assertThat(r1.result().outcome()).isEqualTo(io.ql3.worker.journal.Outcome.CANCELLED);
    assertThat(r1.result().failure().code()).isEqualTo("not_started");
  }

  /**
   * An offer that breaks a rule about one offer (here: an executor this worker does not advertise)
   * is completed {@code offer_rejected} even when its answer arrives after the session ended: a
   * {@code not_started} completion would have the server offer it again, only to be rejected again.
   */
  @Test
  void aRejectedOfferInTheAnswerOfAnEndedSessionIsCompletedOfferRejected() throws Exception {
    seedPendingCompletion("done-1");
    freeSlots = 2;
    plane();
    tick(); // completion and pull both on the wire
    ingress.lastComplete.complete(refused(AnswerKind.DRIFT));
    Offer unadvertised =
        Offer.of(
            1, "k-r2", new RunId("r2"), new OpaqueSpec("container", JsonValue.JsonObject.EMPTY), 1);
    ingress.lastPull.complete(offers(noopOffer("r1"), unadvertised));
    tick();
    assertThat(session.ended).isTrue();
    awaitJournal(() -> journal.facts().pendingCompletions().size() >= 3);
    Map<String, RunFact> byRun = new java.util.HashMap<>();
    journal.facts().pendingCompletions().forEach(f -> byRun.put(f.key().runId(), f));
    assertThat(byRun.get("r1").result().failure().code()).isEqualTo("not_started");
    assertThat(byRun.get("r2").result().outcome()).isEqualTo(io.ql3.worker.journal.Outcome.FAILED);
    assertThat(byRun.get("r2").result().failure().code()).isEqualTo("offer_rejected");
  }

  /**
   * The wire lets an offer's executor name and spec digest be any string, and breaking their rules
   * rejects that offer only (section 5), even where the journal could not hold the value: an empty
   * or a 40-character executor name, an empty digest. Each is completed {@code offer_rejected}; the
   * good offer beside them runs.
   */
  @Test
  void offersWithAnUnrecordableExecutorOrDigestAreRejectedAloneAndTheRestRuns() throws Exception {
    freeSlots = 4;
    plane();
    tick(); // the pull on the wire
    PullRequest sent = ingress.pullsSent.get(ingress.pullsSent.size() - 1);
    String digest = noopOffer("x").specDigest();
    String body =
        "{\"schema\":\"qinglong/worker-execution-pull@v1\",\"pullId\":\""
            + sent.pullId().value()
            + "\",\"generation\":7,\"nextPullAfterMs\":0,\"offers\":["
            + wireOffer("e-empty", "", digest)
            + ","
            + wireOffer("e-long", "x".repeat(40), digest)
            + ","
            + wireOffer("d-empty", "noop", "")
            + ","
            + wireOffer("ok", "noop", digest)
            + "]}";
    ingress.lastPull.complete(
        Answer.success(
            PullResponse.parse(
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8), OfferPolicy.CONTRACT)));
    tick();
    PlaneHarnessAwait.until(
        "four completions recorded",
        () -> {
          tick();
          return journal.facts().pendingCompletions().size() >= 4;
        });
    Map<String, RunFact> byRun = new java.util.HashMap<>();
    journal.facts().pendingCompletions().forEach(f -> byRun.put(f.key().runId(), f));
    for (String rejected : List.of("e-empty", "e-long", "d-empty")) {
      assertThat(byRun.get(rejected).result().failure().code())
          .as(rejected)
          .isEqualTo("offer_rejected");
    }
    assertThat(byRun.get("ok").result().outcome())
        .isEqualTo(io.ql3.worker.journal.Outcome.SUCCEEDED);
  }

  private static String wireOffer(String run, String executor, String digest) {
    return "{\"attempt\":1,\"executor\":\""
        + executor
        + "\",\"idempotencyKey\":\"k-"
        + run
        + "\",\"runId\":\""
        + run
        + "\",\"spec\":{},\"specDigest\":\""
        + digest
        + "\",\"timeoutMs\":60000}";
  }

  /**
   * An answer whose offers cannot be taken in (a bug) is resent with the same pullId, so the server
   * replays what it leased, but after a backoff: an answer that fails every time costs one pull per
   * backoff step, not one per cadence step.
   */
  @Test
  void anAnswerThatFailsToBeTakenInIsResentAfterABackoff() throws Exception {
    session.failOnOfferRejected = true;
    plane();
    tick();
    Offer unadvertised =
        Offer.of(
            1, "k-r9", new RunId("r9"), new OpaqueSpec("container", JsonValue.JsonObject.EMPTY), 1);
    for (int round = 0; round < 3; round++) {
      if (!ingress.lastPull.isDone()) {
        ingress.lastPull.complete(offers(unadvertised));
      }
      try {
        tick();
      } catch (IllegalStateException expected) {
        // the step reports it; the agent logs it and goes on
      }
    }
    assertThat(ingress.pullsSent).as("no resend before the backoff").hasSize(1);
    advance(60_000);
    tick();
    assertThat(ingress.pullsSent).hasSize(2);
    assertThat(ingress.pullsSent.get(1).pullId()).isEqualTo(ingress.pullsSent.get(0).pullId());
  }

  /**
   * A pull whose outcome is unknown, then refused for its credentials, keeps its pullId: once the
   * session is active again the identical pull is resent, so the runs the lost answer leased are
   * replayed.
   */
  @Test
  void aPullWhoseOutcomeIsUnknownKeepsItsPullIdThroughACredentialRefusal() throws Exception {
    plane();
    ingress.pulls.add(answered(refused(AnswerKind.OUTCOME_UNKNOWN)));
    ingress.pulls.add(answered(refused(AnswerKind.CREDENTIAL_REJECTED)));
    tick();
    tickUntilPulls(2);
    tick(); // harvests the refusal
    assertThat(session.suspended).isTrue();
    assertThat(plane.pullOutstanding()).as("kept, not closed").isTrue();
    session.suspended = false; // a later heartbeat is accepted again
    tickUntilPulls(3);
    assertThat(ingress.pullsSent)
        .extracting(PullRequest::pullId)
        .containsOnly(ingress.pullsSent.get(0).pullId());
    assertThat(journal.facts().openPulls()).hasSize(1);
  }

  /** A retry-after of a day on a pull is capped at 60 s. */
  @Test
  void aRetryAfterOfADayOnAPullIsCappedAtOneMinute() throws Exception {
    plane();
    ingress.pulls.add(
        answered(
            new Answer.Refusal<>(
                AnswerKind.TRANSIENT,
                503,
                ErrorCode.UNAVAILABLE,
                Optional.of(Duration.ofSeconds(86_400)),
                null,
                "scripted")));
    tick();
    tick();
    advance(59_999);
    tick();
    assertThat(ingress.pullsSent).hasSize(1);
    advance(1);
    tick();
    assertThat(ingress.pullsSent).hasSize(2);
    assertThat(ingress.pullsSent.get(1).pullId()).isEqualTo(ingress.pullsSent.get(0).pullId());
  }

  /**
   * A 429 with a retry-after of a day on a completion is capped at 60 s (a drain is not held for a
   * day).
   */
  @Test
  void aRetryAfterOfADayOnACompletionIsCappedAtOneMinute() throws Exception {
    seedPendingCompletion("done-1");
    plane();
    freeSlots = 0;
    ingress.completes.add(
        answered(
            new Answer.Refusal<>(
                AnswerKind.TRANSIENT,
                429,
                ErrorCode.RATE_LIMITED,
                Optional.of(Duration.ofSeconds(86_400)),
                null,
                "scripted")));
    ingress.completes.add(answered(accepted("done-1")));
    tick();
    tick();
    advance(59_999);
    tick();
    assertThat(ingress.completesSent).hasSize(1);
    advance(1);
    tick();
    tick();
    assertThat(ingress.completesSent).hasSize(2);
    PlaneHarnessAwait.until("settled, its settlement durable", plane::settled);
  }

  /**
   * A pull future that completed exceptionally (an error thrown while its answer was read) is a
   * handled outcome: the step does not throw, and the same pull is tried again.
   */
  @Test
  void anExceptionallyCompletedPullFutureIsAHandledOutcome() throws Exception {
    plane();
    ingress.pulls.add(CompletableFuture.failedFuture(new OutOfMemoryError("Java heap space")));
    tick();
    assertThatCode(this::tick).doesNotThrowAnyException();
    tickUntilPulls(2);
    assertThat(ingress.pullsSent.get(1).pullId()).isEqualTo(ingress.pullsSent.get(0).pullId());
  }

  /**
   * Offers that are always rejected do not make the plane re-pull back to back (one journal force
   * per round): the next pull waits a backoff.
   */
  @Test
  void offersThatAreAlwaysRejectedBackOff() throws Exception {
    plane();
    tick();
    for (int round = 0; round < 20; round++) {
      if (ingress.lastPull != null && !ingress.lastPull.isDone()) {
        ingress.lastPull.complete(
            offers(
                Offer.of(
                    1,
                    "k",
                    new RunId("ghost-" + round),
                    new OpaqueSpec("ghost", JsonValue.JsonObject.EMPTY),
                    60_000)));
      }
      if (ingress.lastComplete != null && !ingress.lastComplete.isDone()) {
        ingress.lastComplete.complete(
            accepted(ingress.completesSent.get(ingress.completesSent.size() - 1)));
      }
      tick(); // no time passes
    }
    assertThat(ingress.pullsSent).as("one pull, then a backoff").hasSize(1);
    advance(1_000);
    tick();
    assertThat(ingress.pullsSent).hasSize(2);
  }

  /**
   * An executor whose prepare throws a RuntimeException fails that offer only: the runs prepared
   * before it are launched (not leaked), the pull is closed, not resent.
   */
  @Test
  void anExecutorThatThrowsWhilePreparingFailsThatOfferOnly() throws Exception {
    plane();
    freeSlots = 2;
    tick();
    ingress.lastPull.complete(offers(brittleOffer("ok-1", false), brittleOffer("boom-1", true)));
    assertThatCode(this::tick).doesNotThrowAnyException();
    assertThat(BrittleExecutor.EVENTS).containsExactly("prepared ok-1", "launched ok-1");
    assertThat(ingress.pullsSent).as("the answered pull is closed; the next one is new").hasSize(2);
    assertThat(journal.facts().openPulls())
        .extracting(p -> p.pullId())
        .containsExactly(ingress.pullsSent.get(1).pullId().value());
    assertThat(ingress.pullsSent.get(1).pullId()).isNotEqualTo(ingress.pullsSent.get(0).pullId());
    awaitJournal(
        () ->
            journal.facts().pendingCompletions().stream()
                .anyMatch(f -> f.key().runId().equals("boom-1")));
    RunFact boom =
        journal.facts().pendingCompletions().stream()
            .filter(f -> f.key().runId().equals("boom-1"))
            .findFirst()
            .orElseThrow();
    assertThat(boom.result().failure().code()).isEqualTo("executor_error");
  }

  /** A completion refused with a 409 session code is settled undeliverable, not retried. */
  @Test
  void aCompletionRefusedWithASessionCodeIsSettledUndeliverable() throws Exception {
    seedPendingCompletion("done-1");
    plane();
    freeSlots = 0;
    ingress.completes.add(
        answered(
            new Answer.Refusal<>(
                AnswerKind.FENCED,
                409,
                ErrorCode.SESSION_FENCED,
                Optional.empty(),
                null,
                "scripted")));
    tick();
    tick();
    assertThat(events).contains("undeliverable done-1");
    PlaneHarnessAwait.until("settled, its settlement durable", plane::settled);
    advance(120_000);
    tick();
    assertThat(ingress.completesSent).containsExactly("done-1");
    awaitJournal(
        () ->
            journal.facts().recentCompletion("done-1", 1).map(RunFact::settlement).orElse(null)
                == Settlement.UNDELIVERABLE);
  }

  /**
   * A pull refused as a client bug is given up (it leased nothing) and not resent; the session
   * stops pulling but is not ended.
   */
  @Test
  void aPullRefusedAsAClientBugIsClosedAndTheSessionGoesOnWithoutPulls() throws Exception {
    plane();
    ingress.pulls.add(answered(refused(AnswerKind.CLIENT_BUG)));
    tick(); // sent, and its answer is already there
    tick(); // harvested
    assertThat(session.pullsStopped).isTrue();
    assertThat(session.ended).as("only a 409 ends the session").isFalse();
    assertThat(plane.pullOutstanding()).isFalse();
    awaitJournal(() -> journal.facts().openPulls().isEmpty());
    advance(600_000);
    tick();
    assertThat(ingress.pullsSent).hasSize(1);
  }

  /**
   * An empty answer's {@code nextPullAfterMs} is the earliest time the server wants another pull
   * (section 5): a slot freed meanwhile does not bring it forward; the server's {@code
   * workAvailable} does.
   */
  @Test
  void aSlotFreedBeforeTheNextPullHintDoesNotPullEarly() throws Exception {
    seedPendingCompletion("done-1");
    freeSlots = 2;
    plane();
    tick(); // the completion and a pull on the wire
    assertThat(ingress.pullsSent).hasSize(1);
    ingress.lastPull.complete(
        Answer.success(new PullResponse(7, 120_000, List.of(), ingress.pullsSent.get(0).pullId())));
    tick(); // the hint: no pull before 120 s from now
    ingress.lastComplete.complete(accepted("done-1"));
    tick(); // the completion settles: a slot is free, and a pull wanted
    awaitJournal(
        () ->
            journal.facts().recentCompletion("done-1", 1).map(RunFact::settlement).orElse(null)
                != null);
    for (int i = 0; i < 10; i++) {
      advance(1_000);
      tick();
    }
    assertThat(ingress.pullsSent).as("not before the hint").hasSize(1);
    plane.workAvailable();
    tick();
    assertThat(ingress.pullsSent).as("the server's wake overrides its hint").hasSize(2);
  }

  /**
   * A pull refused as a client bug after a try whose outcome is unknown: that lost answer may have
   * leased runs the agent can never learn of, so once nothing else is held the session ends (and
   * the server reclaims them); until then the runs held keep their lease.
   */
  @Test
  void aPullRefusedAsAClientBugAfterAnUnknownOutcomeEndsTheSessionOnceNothingIsHeld()
      throws Exception {
    seedPendingCompletion("done-1");
    plane();
    ingress.pulls.add(answered(refused(AnswerKind.OUTCOME_UNKNOWN)));
    ingress.pulls.add(answered(refused(AnswerKind.CLIENT_BUG)));
    tick(); // the completion (left on the wire) and the pull go out
    tickUntilPulls(2); // the identical resend, refused
    tick();
    assertThat(session.pullsStopped).isTrue();
    assertThat(events).as("a run is still held").doesNotContain("unrecoverable");
    assertThat(plane.pullOutstanding()).isTrue();
    ingress.lastComplete.complete(accepted("done-1"));
    PlaneHarnessAwait.until(
        "the session ends once nothing is held",
        () -> {
          advance(100);
          tick();
          return events.contains("unrecoverable");
        });
    assertThat(plane.pullOutstanding()).isFalse();
    awaitJournal(() -> journal.facts().openPulls().isEmpty());
    assertThat(ingress.pullsSent).hasSize(2);
  }

  /** A heartbeat's wake that came after the pull went out makes its answer's hint stale. */
  @Test
  void aWakeAfterThePullWentOutOverridesItsAnswersHint() throws Exception {
    plane();
    tick(); // the pull on the wire
    plane.workAvailable();
    ingress.lastPull.complete(
        Answer.success(new PullResponse(7, 120_000, List.of(), ingress.pullsSent.get(0).pullId())));
    tick();
    assertThat(ingress.pullsSent).hasSize(2);
  }

  /** A hint holds for the session whose pull it answered, not for the next one. */
  @Test
  void aHintOfAnEndedSessionDoesNotHoldForTheNextOne() throws Exception {
    seedPendingCompletion("done-1");
    plane();
    tick(); // the completion and a pull on the wire
    ingress.lastPull.complete(
        Answer.success(new PullResponse(7, 120_000, List.of(), ingress.pullsSent.get(0).pullId())));
    tick(); // a hint for this session
    lease = new SessionLease(ids.nextSessionId(), 8); // a new session (the fake gate's permit)
    ingress.lastComplete.complete(accepted("done-1"));
    for (int i = 0; i < 50 && ingress.pullsSent.size() < 2; i++) {
      advance(100);
      tick();
    }
    assertThat(ingress.pullsSent).as("pulled under the new session before the old hint").hasSize(2);
    assertThat(ingress.pullsSent.get(1).generation()).isEqualTo(8);
  }

  /** Without a wake, the next pull goes out once the hint's time is reached. */
  @Test
  void theNextPullGoesOutAtTheHintsTime() throws Exception {
    plane();
    tick();
    ingress.lastPull.complete(
        Answer.success(new PullResponse(7, 120_000, List.of(), ingress.pullsSent.get(0).pullId())));
    tick();
    advance(119_000);
    tick();
    assertThat(ingress.pullsSent).hasSize(1);
    advance(1_000);
    tick();
    assertThat(ingress.pullsSent).hasSize(2);
  }

  void tickUntilPulls(int n) {
    for (int i = 0; i < 600 && ingress.pullsSent.size() < n; i++) {
      advance(100);
      tick();
    }
    assertThat(ingress.pullsSent).hasSize(n);
  }

  static void awaitJournal(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    PlaneHarnessAwait.until("the journal records it", condition);
  }
}
