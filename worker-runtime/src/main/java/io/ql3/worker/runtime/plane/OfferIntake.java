package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.runtime.exec.CancellationSignal;
import io.ql3.worker.runtime.exec.ExecutionClock;
import io.ql3.worker.runtime.exec.ExecutionContext;
import io.ql3.worker.runtime.exec.ExecutionResult;
import io.ql3.worker.runtime.exec.Executor;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.PrepareFailedException;
import io.ql3.worker.runtime.exec.PreparedRun;
import io.ql3.worker.runtime.exec.RunHandle;
import io.ql3.worker.runtime.session.SessionLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Offer intake: the offers of one pull answer become journal records first (offer accepted, then
 * run started or its result), in ONE group commit, and only once that is durable are the prepared
 * runs launched; a run prepared and not launched is always discarded. It owns the runs from their
 * acceptance until their results are durable and handed to the {@link CompletionOutbox}.
 *
 * <p>The cadence thread never waits for the disk here: a group commit is queued, the step goes on,
 * and the journal's future wakes the cadence when it is durable; a later step acts on it (launches,
 * or hands results over). While one force is on its way the step handles other answers, whose
 * records ride the next force.
 */
final class OfferIntake {
  private final Journal journal;
  private final ExecutorRegistry executors;
  private final RunPaths paths;
  private final ExecutionClock clock;
  private final PlaneListener listener;
  private final Runnable wake;
  private final CompletionOutbox outbox;

  /** Launched runs, by attempt, until their results are durable. */
  private final Map<RunKey, LiveRun> running = new LinkedHashMap<>();

  /** Accepted offers whose records are on their way to the disk. */
  private final StartingRuns starting = new StartingRuns();

  OfferIntake(
      Journal journal,
      ExecutorRegistry executors,
      RunPaths paths,
      ExecutionClock clock,
      PlaneListener listener,
      Runnable wake,
      CompletionOutbox outbox) {
    this.journal = journal;
    this.executors = executors;
    this.paths = paths;
    this.clock = clock;
    this.listener = listener;
    this.wake = wake;
    this.outbox = outbox;
  }

  /** Runs held here: launched or about to be, and not yet handed to the outbox. */
  int runningCount() {
    return running.size() + starting.preparedCount();
  }

  boolean isEmpty() {
    return running.isEmpty() && starting.isEmpty();
  }

  /** True while an answer's records or a finished run's result wait for the step that uses them. */
  boolean journalStepOwed() {
    if (!starting.isEmpty()) {
      return true;
    }
    for (LiveRun r : running.values()) {
      if (r.resultWrite != null) {
        return true;
      }
    }
    return false;
  }

  /** True while an answer's records or a finished run's result are on their way to the disk. */
  boolean waitingForDisk() {
    if (starting.waitingForDisk()) {
      return true;
    }
    for (LiveRun r : running.values()) {
      if (r.resultWrite != null && !r.resultWrite.isDone()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Cancels these runs (a heartbeat's {@code cancelRuns}); unknown ones are ignored. A run about to
   * be launched is launched cancelled: its executor ends it at once.
   */
  void cancel(List<RunId> runIds) {
    for (RunId id : runIds) {
      for (LiveRun r : running.values()) {
        if (r.runId.equals(id.value())) {
          r.cancellation.cancel(CancellationSignal.DEFAULT_REASON);
        }
      }
      starting.cancel(id.value(), CancellationSignal.DEFAULT_REASON);
    }
  }

  /** Cancels every run cooperatively (drain timeout, second signal). */
  void cancelAll(Failure reason) {
    for (LiveRun r : running.values()) {
      r.cancellation.cancel(reason);
    }
    starting.cancel(null, reason);
  }

  /**
   * Launches the prepared runs of every answer whose records are durable, in answer order, and
   * queues its never-started offers' results for delivery.
   *
   * @throws RuntimeException the journal failed or refused one of an answer's records: none of that
   *     answer's runs is launched (all discarded), and the step fails
   */
  void launchDurable() {
    StartingRuns.Answer a;
    while ((a = starting.pollDurable()) != null) {
      int launched = 0;
      try {
        a.awaitWrites(); // a failed or refusing journal throws: nothing of this answer is launched
        for (StartingRuns.NeverStarted n : a.never) {
          outbox.queue(n.accepted, n.result, false);
        }
        for (StartingRuns.Prepared s : a.prepared) {
          RunHandle handle = s.run.launch();
          launched++;
          LiveRun live = new LiveRun(s.accepted, handle, s.cancellation);
          running.put(live.key, live);
          handle.result().whenComplete((r, e) -> wake.run());
          listener.runStarted(live.runId, live.attempt, handle.pid());
        }
      } finally {
        // Whatever failed above (the journal, a launch): no prepared run is left holding its log.
        for (int i = launched; i < a.prepared.size(); i++) {
          a.prepared.get(i).run.discard();
        }
      }
    }
  }

  /**
   * Hands the runs whose results are durable to the outbox (a result is durable before its
   * completion is queued), then queues the results of the runs that finished since, as one group
   * commit that wakes the cadence when it is durable.
   *
   * @return true when a run finished or its result became durable (a slot may soon be free)
   * @throws RuntimeException the journal failed or refused a result
   */
  boolean recordFinished() {
    boolean changed = false;
    List<LiveRun> done = new ArrayList<>();
    Iterator<LiveRun> it = running.values().iterator();
    while (it.hasNext()) {
      LiveRun r = it.next();
      if (r.resultWrite != null) {
        if (r.resultWrite.isDone()) {
          r.resultWrite.join(); // a failed journal throws: the agent stops taking work
          it.remove();
          outbox.queue(r.offer, r.result, false);
          listener.runFinished(r.runId, r.attempt, r.result);
          changed = true;
        }
      } else if (r.handle.result().isDone()) {
        done.add(r);
      }
    }
    if (done.isEmpty()) {
      return changed;
    }
    List<JournalRecord> records = new ArrayList<>(done.size());
    for (LiveRun r : done) {
      ExecutionResult er = r.handle.result().join();
      r.result = JournalMapping.toJournal(er.outcome(), er.failure(), er.run());
      records.add(new JournalRecord.ResultRecorded(r.runId, r.attempt, r.result));
    }
    // One group commit for all of them; the journal completes its futures in order.
    List<CompletableFuture<Long>> writes = journal.appendAllAsync(records);
    for (int i = 0; i < done.size(); i++) {
      done.get(i).resultWrite = writes.get(i);
    }
    wakeWhenAllDone(writes);
    return true;
  }

  /**
   * Handles the offers of one pull answer with ONE group commit before anything runs: for each new
   * offer, "offer accepted" and then either "run started" (prepared, about to launch) or its result
   * (refused, or preparation failed); then the reservation is closed. Only after that force are the
   * prepared runs launched ({@link #launchDurable}, in a later step woken by the force): both
   * write-ahead rules hold (the offer is durable before it is acted on, the start is durable before
   * the launch) at the cost of one force per answer, which may be shared with other records.
   *
   * @return how many runs will be launched once the records are durable
   */
  int accept(SessionLease lease, PullId pullId, PullResponse resp, boolean mayRun) {
    JournalFacts facts = journal.facts();
    List<JournalRecord> records = new ArrayList<>();
    List<StartingRuns.Prepared> prepared = new ArrayList<>();
    List<StartingRuns.NeverStarted> failed = new ArrayList<>();
    for (Offer offer : resp.offers()) {
      RunKey key = new RunKey(offer.runId().value(), offer.attempt());
      if (running.containsKey(key) || outbox.holds(key) || starting.holds(key)) {
        continue; // already ours: running, about to be launched, or being delivered
      }
      Optional<RunFact> known = facts.recentCompletion(key.runId(), key.attempt());
      if (known.isPresent()) {
        // Completed before: answer from the journal, never execute again.
        RunFact f = known.get();
        outbox.queue(f.offer(), f.result(), f.settlement() != null);
        listener.offerDeduplicated(key.runId(), key.attempt());
        continue;
      }
      if (isHeld(facts, key)) {
        continue;
      }
      JournalRecord.OfferAccepted accepted =
          new JournalRecord.OfferAccepted(
              offer.runId().value(),
              offer.attempt(),
              lease.sessionId().value(),
              lease.generation(),
              offer.executor(),
              offer.specDigest(),
              offer.idempotencyKey(),
              offer.timeoutMs());
      records.add(accepted);
      if (!mayRun) {
        // The session ended while this answer was on its way: the server reclaims these runs, so
        // none is executed; each is completed as never started, so it can be offered again at once.
        settle(accepted, Outcome.CANCELLED, OfferRefusals.SESSION_ENDED, records, failed);
        continue;
      }
      Optional<Failure> refusal = OfferRefusals.of(offer, executors);
      if (refusal.isPresent()) {
        listener.offerRejected(accepted.runId(), accepted.attempt(), refusal.get().message());
        settle(accepted, Outcome.FAILED, refusal.get(), records, failed);
        continue;
      }
      CancellationSignal cancellation = new CancellationSignal();
      ExecutionContext ctx =
          new ExecutionContext(
              offer.runId(),
              offer.attempt(),
              offer.idempotencyKey(),
              paths.workDirectory(offer.runId().value(), offer.attempt()),
              paths.outputLog(offer.runId().value(), offer.attempt()),
              Duration.ofMillis(offer.timeoutMs()),
              cancellation,
              clock);
      try {
        Executor executor = executors.find(offer.executor()).orElseThrow();
        PreparedRun run = executor.prepare(offer.executorSpec().orElseThrow(), ctx);
        prepared.add(new StartingRuns.Prepared(accepted, run, cancellation));
        // Durable BEFORE launch: a crash after this point reports the run uncertain, never reruns
        // it.
        records.add(new JournalRecord.RunStarted(accepted.runId(), accepted.attempt(), -1, -1));
      } catch (PrepareFailedException e) {
        settle(accepted, Outcome.FAILED, e.failure(), records, failed);
      } catch (RuntimeException e) {
        // An executor bug: this offer fails (never started); the answer and its other offers go on.
        settle(
            accepted,
            Outcome.FAILED,
            OfferRefusals.executorError(offer.executor(), e),
            records,
            failed);
      }
    }
    records.add(new JournalRecord.PullClosed(pullId.value()));
    boolean queued = false;
    try {
      List<CompletableFuture<Long>> writes = journal.appendAllAsync(records);
      starting.add(writes, prepared, failed);
      queued = true;
      wakeWhenAllDone(writes);
    } finally {
      if (!queued) {
        // The journal refused the group at once: no prepared run is left holding its log.
        for (StartingRuns.Prepared s : prepared) {
          s.run.discard();
        }
      }
    }
    return prepared.size();
  }

  /** Records an offer that will never run with its result (riding the same group commit). */
  private static void settle(
      JournalRecord.OfferAccepted accepted,
      Outcome outcome,
      Failure failure,
      List<JournalRecord> records,
      List<StartingRuns.NeverStarted> failed) {
    io.ql3.worker.journal.RunResult result =
        JournalMapping.toJournal(outcome, failure, RunResult.NOT_RUN);
    records.add(new JournalRecord.ResultRecorded(accepted.runId(), accepted.attempt(), result));
    failed.add(new StartingRuns.NeverStarted(accepted, result));
  }

  private static boolean isHeld(JournalFacts facts, RunKey key) {
    for (List<RunFact> list :
        List.of(facts.accepted(), facts.running(), facts.pendingCompletions())) {
      for (RunFact f : list) {
        if (f.key().equals(key)) {
          return true;
        }
      }
    }
    return false;
  }

  /** One wake when every write is durable or refused (a refused one fails at once, alone). */
  private void wakeWhenAllDone(List<CompletableFuture<Long>> writes) {
    CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
        .whenComplete((v, e) -> wake.run());
  }

  // ------------------------------------------------------------------ state holders

  private static final class LiveRun {
    final RunKey key;
    final String runId;
    final long attempt;
    final JournalRecord.OfferAccepted offer;
    final RunHandle handle;
    final CancellationSignal cancellation;

    /** Its result, once it finished. */
    io.ql3.worker.journal.RunResult result;

    /** The result's journal write, once queued; the run is handed over when it is durable. */
    CompletableFuture<Long> resultWrite;

    LiveRun(JournalRecord.OfferAccepted offer, RunHandle handle, CancellationSignal cancellation) {
      this.key = offer.runKey();
      this.runId = offer.runId();
      this.attempt = offer.attempt();
      this.offer = offer;
      this.handle = handle;
      this.cancellation = cancellation;
    }
  }
}
