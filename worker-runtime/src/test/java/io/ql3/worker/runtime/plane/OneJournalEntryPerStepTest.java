package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.NoopSpec;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalException;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.Settlement;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.ProcessExecutorSettings;
import io.ql3.worker.runtime.exec.SystemExecutionClock;
import io.ql3.worker.runtime.plane.PlaneAnswersTest.ScriptedIngress;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything one cadence step writes is ONE journal entry and costs ONE force: the results of the
 * runs that finished, the settlements of the completions answered, the records of a pull answer's
 * offers and the next pull's reservation. What depends on the entry follows its force, and an entry
 * that is never written, or a record in it that the journal refuses, loses nothing. The journal is
 * real (files, fsync); the ingress is the {@link PlaneAnswersTest.ScriptedIngress} seam, so the
 * test decides exactly what each step finds (a real server cannot be made to answer a completion
 * and a pull between the same two steps).
 */
class OneJournalEntryPerStepTest {
  static final long MS = 1_000_000L;

  @TempDir Path dir;
  final ScriptedIngress ingress = new ScriptedIngress();
  final SystemExecutionClock clock = new SystemExecutionClock();
  final Uuid7Generator ids = new Uuid7Generator(Clock.systemUTC(), new Random(3));
  Journal journal;
  ExecutionPlane plane;
  SessionLease lease;
  long now = 1_000 * MS;

  /** The free slots the plane is told. */
  int slots = 2;

  @BeforeEach
  void start() {
    journal = Journal.open(JournalConfig.of(dir.resolve("journal"), "node-0001"));
    lease = new SessionLease(ids.nextSessionId(), 7);
    journal.append(new JournalRecord.SessionRegistered(lease.sessionId().value(), 7));
  }

  /** Builds the plane (after any seeding of the journal) and reconciles it. */
  void plane() throws Exception {
    plane =
        new ExecutionPlane(
            journal,
            ingress,
            ExecutorRegistry.load(
                List.of("noop"), ProcessExecutorSettings.defaults(), getClass().getClassLoader()),
            OfferPolicy.CONTRACT,
            ScriptedPlanes.settings(dir),
            ids,
            clock,
            ahead -> slots,
            new PlaneListener() {},
            () -> {},
            new Random(42));
    plane.reconcile();
  }

  @AfterEach
  void stop() {
    journal.close();
    clock.close();
  }

  @Test
  void aStepThatRecordsSettlesAcceptsAndReservesForcesTheJournalOnce() throws Exception {
    plane();
    runUntilItsCompletionIsSent("a"); // pull 2 is on the wire
    assertThat(ingress.completesSent).containsExactly("a");
    answerLastPull("c");
    tick(); // accepts and launches c, reserves and sends pull 3
    assertThat(ingress.pullsSent).hasSize(3);

    // Now one step finds all four: c finished, a's completion answered, pull 3 answered.
    ingress.lastComplete.complete(accepted("a"));
    answerLastPull("d");
    long forces = journal.stats().forces();
    long records = journal.stats().records();

    tick();

    assertThat(journal.stats().forces() - forces).as("forces of the step").isEqualTo(1);
    // c's result; a's settlement; d accepted and started; pull 3 closed; pull 4 reserved.
    assertThat(journal.stats().records() - records).isEqualTo(6);
    assertThat(journal.facts().recentCompletion("a", 1).orElseThrow().settlement())
        .isEqualTo(Settlement.ACKNOWLEDGED);
    assertThat(journal.facts().pendingCompletions())
        .extracting(f -> f.key().runId())
        .containsExactlyInAnyOrder("c");
    assertThat(journal.facts().running()).extracting(f -> f.key().runId()).containsExactly("d");
    assertThat(journal.facts().openPulls())
        .extracting(p -> p.pullId())
        .containsExactly(ingress.pullsSent.get(3).pullId().value());
    assertThat(ingress.completesSent).as("c's completion left after the force").endsWith("c");
  }

  @Test
  void aStepWithNothingToWriteDoesNotForce() throws Exception {
    plane();
    tick(); // reserves and sends pull 1, which stays on the wire
    long forces = journal.stats().forces();

    tick();
    tick();

    assertThat(journal.stats().forces()).isEqualTo(forces);
  }

  @Test
  void anEntryNeverWrittenKeepsThePullForAnIdenticalResendAndTheCompletionForAnotherDelivery()
      throws Exception {
    plane();
    runUntilItsCompletionIsSent("a"); // pull 2 is on the wire
    String pull2 = ingress.pullsSent.get(1).pullId().value();
    ingress.lastComplete.complete(accepted("a"));
    answerLastPull("b");

    // The journal cannot take the step's entry: the cadence thread is interrupted while it queues.
    Thread.currentThread().interrupt();
    assertThatThrownBy(this::tick)
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("interrupted");
    assertThat(Thread.interrupted()).isTrue();

    // Nothing of the step was recorded, and nothing of it is forgotten.
    assertThat(journal.facts().openPulls()).extracting(p -> p.pullId()).containsExactly(pull2);
    assertThat(journal.facts().pendingCompletions())
        .extracting(f -> f.key().runId())
        .containsExactly("a");
    assertThat(plane.pullOutstanding()).as("pull 2 is kept").isTrue();
    assertThat(plane.runCounts().pendingCompletions()).as("a's completion is kept").isEqualTo(1);
    assertThat(plane.settled()).isFalse();

    now += 120_000 * MS; // past any backoff
    tick();
    assertThat(ingress.pullsSent.get(ingress.pullsSent.size() - 1).pullId().value())
        .as("the same pullId, resent")
        .isEqualTo(pull2);
    assertThat(ingress.completesSent).containsExactly("a", "a");
    ingress.lastComplete.complete(accepted("a")); // the server's duplicate, as accepted here
    answerLastPull("b"); // the replay of what pull 2 leased
    tick();

    assertThat(journal.facts().recentCompletion("a", 1).orElseThrow().settlement())
        .isEqualTo(Settlement.ACKNOWLEDGED);
    assertThat(journal.facts().running())
        .as("b, accepted and started once")
        .extracting(f -> f.key().runId())
        .containsExactly("b");
    assertThat(journal.facts().openPulls())
        .extracting(p -> p.pullId())
        .doesNotContain(pull2)
        .hasSize(1);
  }

  @Test
  void aSettlementInAnEntryNeverWrittenIsJournaledEvenWhenItsRunWasOfferedAgainInThatStep()
      throws Exception {
    plane();
    runUntilItsCompletionIsSent("a"); // pull 2 is on the wire
    ingress.lastComplete.complete(accepted("a"));
    answerLastPull("a"); // the server offers a again (its completion not seen yet)

    // a's settlement and the re-offer's redelivery of a land in the same step, whose entry the
    // journal never takes.
    Thread.currentThread().interrupt();
    assertThatThrownBy(this::tick).isInstanceOf(JournalException.class);
    assertThat(Thread.interrupted()).isTrue();
    assertThat(plane.runCounts().pendingCompletions()).isEqualTo(1);

    now += 120_000 * MS; // past any backoff
    tick(); // resends pull 2 and a's completion
    ingress.lastComplete.complete(accepted("a"));
    answerLastPull("a");
    tick();

    assertThat(journal.facts().recentCompletion("a", 1).orElseThrow().settlement())
        .as("a's settlement is in the journal")
        .isEqualTo(Settlement.ACKNOWLEDGED);
    assertThat(journal.facts().pendingCompletions()).isEmpty();
    assertThat(journal.facts().heldRuns()).isZero();
    // The replay offered a again while its settlement was on its way: told again, then done.
    assertThat(ingress.completesSent).containsExactly("a", "a", "a");
    ingress.lastComplete.complete(accepted("a"));
    tick();
    assertThat(plane.runCounts().pendingCompletions()).isZero();
  }

  @Test
  void aPullSizedBehindASettlementTheJournalRefusesIsClosedUnsentAndPulledAgainLater()
      throws Exception {
    ScriptedPlanes.seedPendingCompletion(journal, lease, "done");
    slots = 0;
    plane();
    tick(); // delivers done's completion; no slot, no pull
    assertThat(ingress.completesSent).containsExactly("done");
    // The attempt is settled behind the plane's back: the plane's own settlement will be refused.
    journal.append(
        new JournalRecord.CompletionAcknowledged(
            "done", 1, io.ql3.worker.journal.Disposition.ACCEPTED));
    ingress.lastComplete.complete(accepted("done"));
    slots = 1;

    tick(); // settlement (refused) and a reservation behind it, in one entry

    assertThat(ingress.pullsSent).as("the slot it counted on was not freed").isEmpty();
    assertThat(journal.facts().openPulls()).isEmpty();
    tick();
    assertThat(ingress.pullsSent).hasSize(1);
    assertThat(journal.facts().openPulls()).hasSize(1);
  }

  private static Answer<CompleteResponse> accepted(String run) {
    return Answer.success(new CompleteResponse(1, Disposition.ACCEPTED, new RunId(run)));
  }

  /** Pull 1 offers {@code run}, which runs (a noop ends at once); its completion is sent. */
  private void runUntilItsCompletionIsSent(String run) {
    tick(); // reserves and sends pull 1
    answerLastPull(run);
    tick(); // accepts and launches the run, reserves and sends pull 2
    tick(); // records its result, then sends its completion
  }

  private void tick() {
    plane.tick(now, Optional.of(lease), false);
    now += MS;
  }

  private void answerLastPull(String run) {
    PullRequest sent = ingress.pullsSent.get(ingress.pullsSent.size() - 1);
    ingress.lastPull.complete(
        Answer.success(
            new PullResponse(
                7,
                0,
                List.of(Offer.of(1, "k-" + run, new RunId(run), NoopSpec.INSTANCE, 60_000)),
                sent.pullId())));
  }
}
