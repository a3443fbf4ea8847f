package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.runtime.exec.ExecutionClock;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.transport.Backoff;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * Runs offered work under the journal's authority, driven by the cadence: every {@link #tick(long,
 * PullGate)} first records finished runs and delivers completions, then pulls. It coordinates three
 * parts: the {@link OfferIntake} (write-ahead records, then launch), the {@link CompletionOutbox}
 * (results to the server) and the {@link PullLoop} (one pull, in an explicit {@link PullState});
 * every answer is handled by its row of the reaction table. It owns no timer and no thread;
 * executors finish on their own threads and only wake the cadence.
 *
 * <p>Write-ahead order (each step durable before the next): pull reserved → offer accepted → run
 * started → launch; result recorded → completion sent; acknowledged (nothing waits for it). The
 * records one cadence step writes share one entry and one force. An offer already completed (the
 * journal's window) is answered from the journal, never executed again. A completion goes to the
 * session the run was offered under, whatever that session's state is now.
 */
public final class ExecutionPlane {
  private final Journal journal;
  private final PlaneSettings settings;
  private final RandomGenerator random;
  private final CompletionOutbox outbox;
  private final OfferIntake intake;
  private final PullLoop pulls;

  public ExecutionPlane(
      Journal journal,
      PlaneIngress ingress,
      ExecutorRegistry executors,
      OfferPolicy policy,
      PlaneSettings settings,
      Uuid7Generator ids,
      ExecutionClock clock,
      FreeSlots freeSlots,
      PlaneListener listener,
      Runnable wake,
      RandomGenerator random) {
    this.journal = Objects.requireNonNull(journal);
    this.settings = Objects.requireNonNull(settings);
    this.random = Objects.requireNonNull(random);
    RunPaths paths = new RunPaths(settings.workDir(), settings.keptLogs());
    this.outbox =
        new CompletionOutbox(
            Objects.requireNonNull(ingress),
            paths,
            Objects.requireNonNull(listener),
            Objects.requireNonNull(wake),
            this::newBackoff);
    this.intake =
        new OfferIntake(
            journal,
            Objects.requireNonNull(executors),
            paths,
            Objects.requireNonNull(clock),
            listener,
            wake,
            outbox);
    this.pulls =
        new PullLoop(
            journal,
            ingress,
            Objects.requireNonNull(policy),
            settings,
            Objects.requireNonNull(ids),
            Objects.requireNonNull(freeSlots),
            listener,
            wake,
            intake,
            () -> intake.isEmpty() && outbox.isEmpty(),
            outbox,
            newBackoff());
  }

  // ------------------------------------------------------------------ start-up

  /**
   * Reconciles the journal after a start (contract section 7, rule 1), before any register. The
   * journal's own recovery already recorded every run that started and has no result as {@code
   * uncertain} (it owns that fact). Here: a run accepted and provably never started is recorded
   * {@code cancelled} (transient, {@code not_started}) so the server can offer it again at once;
   * open pull reservations are closed (their answer is lost: the server reclaims those runs when
   * the old session ends). Every recorded result is then queued for delivery to the session it was
   * offered under.
   */
  public Reconciliation reconcile() {
    JournalFacts facts = journal.facts();
    List<CompletableFuture<Long>> writes = new ArrayList<>();
    int notStarted = 0;
    for (RunFact f : facts.accepted()) {
      Failure failure =
          new Failure(
              FailureCategory.TRANSIENT,
              "not_started",
              "accepted but never started before the worker stopped");
      writes.add(
          journal.appendAsync(
              new JournalRecord.ResultRecorded(
                  f.offer().runId(),
                  f.offer().attempt(),
                  JournalMapping.toJournal(Outcome.CANCELLED, failure, RunResult.NOT_RUN))));
      notStarted++;
    }
    for (var p : facts.openPulls()) {
      writes.add(journal.appendAsync(new JournalRecord.PullClosed(p.pullId())));
    }
    awaitAll(writes);
    JournalFacts after = journal.facts();
    if (!after.running().isEmpty()) {
      // The journal's recovery settles these; if one is left, the journal and this plane disagree.
      throw new IllegalStateException(
          "journal recovery left " + after.running().size() + " started runs without a result");
    }
    for (RunFact f : after.pendingCompletions()) {
      outbox.queue(f.offer(), f.result(), false);
    }
    return new Reconciliation(
        journal.report().declaredUncertain().size(), notStarted, after.pendingCompletions().size());
  }

  /** What {@link #reconcile()} found. */
  public record Reconciliation(
      int reportedUncertain, int reportedNotStarted, int completionsToDeliver) {}

  // ------------------------------------------------------------------ the step

  /**
   * One step: record finished runs, handle completion answers, deliver completions (first), then
   * handle a pull answer and pull again when there is a reason to. The step's records (the results,
   * the settlements, the answer's offers, the next reservation) are ONE journal entry with one
   * force ({@link StepCommit}); what depends on them (their completions, the launches, the pull)
   * follows it. The gate is read when a pull answer is harvested and when a pull is sent, so an
   * answer applied earlier in this very step that fenced or suspended the session stops pulling at
   * once.
   */
  public void tick(long now, PullGate gate) {
    StepCommit step = new StepCommit();
    Throwable failure = null;
    try {
      if (intake.recordFinished(step)) {
        pulls.wanted(); // a slot may be free
      }
      if (outbox.harvest(now, step)) {
        pulls.wanted();
      }
      outbox.deliver(now); // what was recorded before this step
      pulls.harvest(now, gate, step);
      pulls.maybeSend(now, gate, step);
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    // What was queued is written and followed up even when a later part of the step threw: a
    // settlement taken out of the outbox must land, a prepared run must be launched or discarded.
    // The commit's failure comes first (a failed journal is what stops the agent).
    try {
      step.commit(journal);
    } catch (RuntimeException | Error e) {
      failure = StepCommit.keepFirst(e, failure);
    }
    try {
      outbox.deliver(now); // the results this step recorded (durable, whatever failed after them)
    } catch (RuntimeException | Error e) {
      failure = StepCommit.keepFirst(failure, e);
    }
    StepCommit.rethrow(failure);
  }

  /** {@link #tick(long, PullGate)} with a gate that does not change during the step. */
  public void tick(long now, Optional<SessionLease> permit, boolean sessionEnded) {
    tick(now, PullGate.fixed(permit, sessionEnded));
  }

  /** Cancels these runs (a heartbeat's {@code cancelRuns}); unknown ones are ignored. */
  public void cancel(List<RunId> runIds) {
    intake.cancel(runIds);
  }

  /** Cancels every running run cooperatively (drain timeout, second signal). */
  public void cancelAll(Failure reason) {
    intake.cancelAll(reason);
  }

  /** Stops pulling at once; a parked pull is aborted. Runs and completions go on. */
  public void beginDrain() {
    pulls.beginDrain();
  }

  /**
   * A hint that work is queued (heartbeat {@code workAvailable}): the one wake that overrides a
   * pull answer's {@code nextPullAfterMs}.
   */
  public void workAvailable() {
    pulls.workAvailable();
  }

  /** Stops pulling for the rest of this session (fence, drift, credential rejection). */
  public void sessionLost() {
    pulls.abortIfParked();
  }

  // ------------------------------------------------------------------ queries

  /** Runs held: running, and results waiting for delivery (for heartbeats and status). */
  public RunCounts runCounts() {
    return new RunCounts(intake.runningCount(), outbox.size());
  }

  /**
   * True when no run is held, no pull is outstanding and every settlement is durable in the
   * journal: the session may go offline, or a new one be registered. While the last settlement is
   * still on its way to the disk this is false, and the cadence is woken when it lands.
   */
  public boolean settled() {
    return intake.isEmpty()
        && outbox.isEmpty()
        && pulls.state() == PullState.IDLE
        && outbox.settlementsDurable();
  }

  /** True while a pull is on the wire or waiting to be resent. */
  public boolean pullOutstanding() {
    return pulls.state() != PullState.IDLE;
  }

  private Backoff newBackoff() {
    return new Backoff(settings.retryBase(), settings.retryMax(), random::nextDouble);
  }

  private static void awaitAll(List<CompletableFuture<Long>> writes) {
    for (CompletableFuture<Long> w : writes) {
      w.join(); // a failed journal throws: the agent stops taking work
    }
  }
}
