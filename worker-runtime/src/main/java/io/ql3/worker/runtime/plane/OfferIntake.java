package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.OfferRejection;
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
import io.ql3.worker.runtime.exec.SpecRejectedException;
import io.ql3.worker.runtime.session.SessionLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Offer intake: the offers of one pull answer become journal records first (offer accepted, then
 * run started or its result), queued in the step's ONE entry ({@link StepCommit}), and only once it
 * is durable are the prepared runs launched; a run prepared and not launched is always discarded.
 * It owns the launched runs until their results are recorded and handed to the {@link
 * CompletionOutbox}.
 */
final class OfferIntake {
  private final Journal journal;
  private final ExecutorRegistry executors;
  private final RunPaths paths;
  private final ExecutionClock clock;
  private final PlaneListener listener;
  private final Runnable wake;
  private final CompletionOutbox outbox;

  /** Launched runs, by attempt. */
  private final Map<RunKey, LiveRun> running = new LinkedHashMap<>();

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

  int runningCount() {
    return running.size();
  }

  boolean isEmpty() {
    return running.isEmpty();
  }

  /** Cancels these runs (a heartbeat's {@code cancelRuns}); unknown ones are ignored. */
  void cancel(List<RunId> runIds) {
    for (RunId id : runIds) {
      for (LiveRun r : running.values()) {
        if (r.runId.equals(id.value())) {
          r.cancellation.cancel(CancellationSignal.DEFAULT_REASON);
        }
      }
    }
  }

  /** Cancels every running run cooperatively (drain timeout, second signal). */
  void cancelAll(Failure reason) {
    for (LiveRun r : running.values()) {
      r.cancellation.cancel(reason);
    }
  }

  /**
   * Queues the results of finished runs in this step's entry; once it is durable their completions
   * are queued (a result is durable before its completion is sent). A finished run stays among the
   * running until then.
   *
   * @return true when a run finished (a slot may be free)
   */
  boolean recordFinished(StepCommit step) {
    List<LiveRun> done = new ArrayList<>();
    for (LiveRun r : running.values()) {
      if (r.handle.result().isDone()) {
        done.add(r);
      }
    }
    if (done.isEmpty()) {
      return false;
    }
    List<JournalRecord> records = new ArrayList<>(done.size());
    List<io.ql3.worker.journal.RunResult> results = new ArrayList<>(done.size());
    for (LiveRun r : done) {
      ExecutionResult er = r.handle.result().join();
      io.ql3.worker.journal.RunResult jr =
          JournalMapping.toJournal(er.outcome(), er.failure(), er.run());
      results.add(jr);
      records.add(new JournalRecord.ResultRecorded(r.runId, r.attempt, jr));
    }
    step.add(
        records,
        new StepCommit.Part() {
          @Override
          public void durable(List<CompletableFuture<Long>> writes) {
            awaitAll(writes);
            for (int i = 0; i < done.size(); i++) {
              LiveRun r = done.get(i);
              running.remove(r.key);
              outbox.queue(r.offer, results.get(i), false);
              listener.runFinished(r.runId, r.attempt, results.get(i));
            }
          }

          @Override
          public void abandon(
              RuntimeException cause) {} // still running in this plane's view: recorded next step
        });
    return true;
  }

  /**
   * Handles the offers of one pull answer: for each new offer, "offer accepted" and then either
   * "run started" (prepared, about to launch) or its result (refused, or preparation failed), then
   * the reservation's close, all queued in this step's entry. Only after its force are the prepared
   * runs launched: both write-ahead rules hold (the offer is durable before it is acted on, the
   * start is durable before the launch), and the force is shared with the rest of the step.
   *
   * @return how many runs will be launched once the step is durable
   */
  int accept(
      SessionLease lease, PullId pullId, PullResponse resp, boolean mayRun, StepCommit step) {
    JournalFacts facts = journal.facts();
    List<JournalRecord> records = new ArrayList<>();
    List<PreparedStart> prepared = new ArrayList<>();
    List<FailedStart> failed = new ArrayList<>();
    boolean queued = false;
    try {
      for (Offer offer : resp.offers()) {
        RunKey key = new RunKey(offer.runId().value(), offer.attempt());
        if (running.containsKey(key) || outbox.holds(key)) {
          continue; // already ours: running or being delivered
        }
        Optional<RunFact> known = facts.recentCompletion(key.runId(), key.attempt());
        if (known.isPresent()) {
          // Completed before: answer from the journal, never execute again.
          // Settled, or its settlement on its way to the disk: only the server is told again.
          RunFact f = known.get();
          outbox.queue(f.offer(), f.result(), f.settlement() != null || outbox.settling(key));
          listener.offerDeduplicated(key.runId(), key.attempt());
          continue;
        }
        if (facts.holds(key)) {
          continue;
        }
        // An offer that breaks a rule about one offer is completed offer_rejected whatever the
        // session's state (section 5): offered again, it would only be rejected again.
        Optional<Failure> refusal = refusal(offer);
        JournalRecord.OfferAccepted accepted = accepted(offer, lease, refusal.isPresent());
        records.add(accepted);
        if (refusal.isPresent()) {
          listener.offerRejected(accepted.runId(), accepted.attempt(), refusal.get().message());
          settle(accepted, Outcome.FAILED, refusal.get(), records, failed);
          continue;
        }
        if (!mayRun) {
          // The session ended while this answer was on its way: the server reclaims these runs, so
          // none is executed; each is completed as never started, so it can be offered again at
          // once.
          settle(accepted, Outcome.CANCELLED, SESSION_ENDED, records, failed);
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
          prepared.add(new PreparedStart(accepted, run, cancellation));
          // Durable BEFORE launch: a crash after this point reports the run uncertain, never reruns
          // it.
          records.add(new JournalRecord.RunStarted(accepted.runId(), accepted.attempt(), -1, -1));
        } catch (PrepareFailedException e) {
          settle(accepted, Outcome.FAILED, e.failure(), records, failed);
        } catch (RuntimeException e) {
          // An executor bug: this offer fails (never started); the answer and its other offers go
          // on.
          settle(accepted, Outcome.FAILED, executorError(offer.executor(), e), records, failed);
        }
      }
      records.add(new JournalRecord.PullClosed(pullId.value()));
      step.add(records, new Launch(prepared, failed));
      queued = true;
    } finally {
      if (!queued) {
        // An executor or this code failed before the records were queued: no prepared run is left
        // holding its log.
        discard(prepared, 0);
      }
    }
    return prepared.size();
  }

  /** The follow-up of one answer's records: launch the prepared runs once they are durable. */
  private final class Launch implements StepCommit.Part {
    private final List<PreparedStart> prepared;
    private final List<FailedStart> failed;

    Launch(List<PreparedStart> prepared, List<FailedStart> failed) {
      this.prepared = prepared;
      this.failed = failed;
    }

    @Override
    public void durable(List<CompletableFuture<Long>> writes) {
      int launched = 0;
      try {
        awaitAll(writes);
        for (FailedStart f : failed) {
          outbox.queue(f.accepted(), f.result(), false);
        }
        for (PreparedStart s : prepared) {
          RunHandle handle = s.run.launch();
          launched++;
          LiveRun live = new LiveRun(s.accepted, handle, s.cancellation);
          running.put(live.key, live);
          handle.result().whenComplete((r, e) -> wake.run());
          listener.runStarted(live.runId, live.attempt, handle.pid());
        }
      } finally {
        // Whatever failed (the journal refused a record, a launch threw): no prepared run is left
        // holding its log.
        discard(prepared, launched);
      }
    }

    @Override
    public void abandon(RuntimeException cause) {
      discard(prepared, 0);
    }
  }

  private static void discard(List<PreparedStart> prepared, int from) {
    for (int i = from; i < prepared.size(); i++) {
      prepared.get(i).run.discard();
    }
  }

  private static Failure executorError(String executor, RuntimeException e) {
    return new Failure(
        FailureCategory.TRANSIENT,
        "executor_error",
        fit("executor " + executor + " failed to prepare the run: " + e));
  }

  private static String fit(String m) {
    return m.codePointCount(0, m.length()) > Failure.MAX_MESSAGE_CHARS
        ? m.substring(0, m.offsetByCodePoints(0, Failure.MAX_MESSAGE_CHARS))
        : m;
  }

  private static final Failure SESSION_ENDED =
      new Failure(
          FailureCategory.TRANSIENT,
          "not_started",
          "the offer arrived after its session ended (fenced, expired or drifted); never started");

  /** Records an offer that will never run with its result (riding the same group commit). */
  private static void settle(
      JournalRecord.OfferAccepted accepted,
      Outcome outcome,
      Failure failure,
      List<JournalRecord> records,
      List<FailedStart> failed) {
    io.ql3.worker.journal.RunResult result =
        JournalMapping.toJournal(outcome, failure, RunResult.NOT_RUN);
    records.add(new JournalRecord.ResultRecorded(accepted.runId(), accepted.attempt(), result));
    failed.add(new FailedStart(accepted, result));
  }

  /**
   * The record of an offer; a rejected one may carry an executor name or digest the journal cannot
   * hold ({@link JournalRecord.OfferAccepted#recordable}).
   */
  private static JournalRecord.OfferAccepted accepted(
      Offer offer, SessionLease lease, boolean rejected) {
    return new JournalRecord.OfferAccepted(
        offer.runId().value(),
        offer.attempt(),
        lease.sessionId().value(),
        lease.generation(),
        rejected
            ? JournalRecord.OfferAccepted.recordable(
                offer.executor(), JournalRecord.OfferAccepted.MAX_EXECUTOR)
            : offer.executor(),
        rejected
            ? JournalRecord.OfferAccepted.recordable(
                offer.specDigest(), JournalRecord.OfferAccepted.MAX_SPEC_DIGEST)
            : offer.specDigest(),
        offer.idempotencyKey(),
        offer.timeoutMs());
  }

  /** Why this offer must not run (a one-offer rule, or its executor refuses the spec), if so. */
  private Optional<Failure> refusal(Offer offer) {
    if (offer.rejection().isPresent()) {
      OfferRejection rej = offer.rejection().get();
      return Optional.of(rej.failure());
    }
    Optional<Executor> executor = executors.find(offer.executor());
    ExecutorSpec spec = offer.executorSpec().orElse(null);
    if (executor.isEmpty() || spec == null) {
      return Optional.of(
          offerRejected("executor " + offer.executor() + " is not enabled on this worker"));
    }
    try {
      executor.get().validate(spec);
      return Optional.empty();
    } catch (SpecRejectedException e) {
      return Optional.of(offerRejected(e.getMessage()));
    }
  }

  private static Failure offerRejected(String message) {
    String m = message == null ? "offer rejected" : message;
    if (m.codePointCount(0, m.length()) > Failure.MAX_MESSAGE_CHARS) {
      m = m.substring(0, m.offsetByCodePoints(0, Failure.MAX_MESSAGE_CHARS));
    }
    return new Failure(FailureCategory.PERMANENT, OfferRejection.FAILURE_CODE, m);
  }

  private static void awaitAll(List<CompletableFuture<Long>> writes) {
    for (CompletableFuture<Long> w : writes) {
      w.join(); // a failed journal throws: the agent stops taking work
    }
  }

  // ------------------------------------------------------------------ state holders

  private record FailedStart(
      JournalRecord.OfferAccepted accepted, io.ql3.worker.journal.RunResult result) {}

  private record PreparedStart(
      JournalRecord.OfferAccepted accepted, PreparedRun run, CancellationSignal cancellation) {}

  private static final class LiveRun {
    final RunKey key;
    final String runId;
    final long attempt;
    final JournalRecord.OfferAccepted offer;
    final RunHandle handle;
    final CancellationSignal cancellation;

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
