package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.OfferRejection;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.journal.Disposition;
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
import io.ql3.worker.runtime.answer.Answers;
import io.ql3.worker.runtime.answer.Reaction;
import io.ql3.worker.runtime.answer.Reactions;
import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.runtime.retry.Backoff;
import io.ql3.worker.runtime.session.SessionLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;

/**
 * Runs offered work under the journal's authority, driven by the cadence: every
 * {@link #tick(long, Optional)} first records finished runs and delivers completions, then pulls.
 * It owns no timer and no thread; executors finish on their own threads and only wake the cadence.
 *
 * <p>Write-ahead order (each step durable before the next): pull reserved → offer accepted →
 * run started → launch; result recorded → completion sent; acknowledged (may ride a later group
 * commit). An offer already completed (the journal's window) is answered from the journal, never
 * executed again. A completion goes to the session the run was offered under, whatever that
 * session's state is now.
 */
public final class ExecutionPlane {
  private static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final int MAX_COMPLETIONS_IN_FLIGHT = 16;

  private final Journal journal;
  private final PlaneIngress ingress;
  private final ExecutorRegistry executors;
  private final OfferPolicy policy;
  private final PlaneSettings settings;
  private final RunPaths paths;
  private final Uuid7Generator ids;
  private final ExecutionClock clock;
  private final IntSupplier freeSlots;
  private final PlaneListener listener;
  private final Runnable wake;
  private final RandomGenerator random;

  /** Launched runs, by attempt. */
  private final Map<RunKey, LiveRun> running = new LinkedHashMap<>();
  /** Recorded results waiting for (or in) delivery, by attempt. */
  private final Map<RunKey, Delivery> deliveries = new LinkedHashMap<>();

  private PendingPull pull;
  private boolean draining;
  private boolean pullWanted = true;
  private final Deadline nextPullAt = new Deadline();
  private final Deadline pullNotBefore = new Deadline();
  private final Backoff pullBackoff;
  /** The session whose lost long-poll answer could not be recovered: never pulled under again. */
  private SessionLease abandonedLease;

  public ExecutionPlane(
      Journal journal,
      PlaneIngress ingress,
      ExecutorRegistry executors,
      OfferPolicy policy,
      PlaneSettings settings,
      Uuid7Generator ids,
      ExecutionClock clock,
      IntSupplier freeSlots,
      PlaneListener listener,
      Runnable wake,
      RandomGenerator random) {
    this.journal = Objects.requireNonNull(journal);
    this.ingress = Objects.requireNonNull(ingress);
    this.executors = Objects.requireNonNull(executors);
    this.policy = Objects.requireNonNull(policy);
    this.settings = Objects.requireNonNull(settings);
    this.paths = new RunPaths(settings.workDir(), settings.keptLogs());
    this.ids = Objects.requireNonNull(ids);
    this.clock = Objects.requireNonNull(clock);
    this.freeSlots = Objects.requireNonNull(freeSlots);
    this.listener = Objects.requireNonNull(listener);
    this.wake = Objects.requireNonNull(wake);
    this.random = Objects.requireNonNull(random);
    this.pullBackoff = newBackoff();
  }

  // ------------------------------------------------------------------ start-up

  /**
   * Reconciles the journal after a start (contract section 7, rule 1), before any register. The
   * journal's own recovery already recorded every run that started and has no result as
   * {@code uncertain} (it owns that fact). Here: a run accepted and provably never started is
   * recorded {@code cancelled} (transient, {@code not_started}) so the server can offer it again at
   * once; open pull reservations are closed (their answer is lost: the server reclaims those runs
   * when the old session ends). Every recorded result is then queued for delivery to the session it
   * was offered under.
   */
  public Reconciliation reconcile() {
    JournalFacts facts = journal.facts();
    List<CompletableFuture<Long>> writes = new ArrayList<>();
    int notStarted = 0;
    for (RunFact f : facts.accepted()) {
      Failure failure = new Failure(FailureCategory.TRANSIENT, "not_started",
          "accepted but never started before the worker stopped");
      writes.add(journal.appendAsync(new JournalRecord.ResultRecorded(f.offer().runId(), f.offer().attempt(),
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
      throw new IllegalStateException("journal recovery left " + after.running().size() + " started runs without a result");
    }
    for (RunFact f : after.pendingCompletions()) {
      queueDelivery(f.offer(), f.result(), false);
    }
    return new Reconciliation(journal.report().declaredUncertain().size(), notStarted,
        after.pendingCompletions().size());
  }

  /** What {@link #reconcile()} found. */
  public record Reconciliation(int reportedUncertain, int reportedNotStarted, int completionsToDeliver) {}

  // ------------------------------------------------------------------ the step

  /**
   * One step: record finished runs, handle completion answers, deliver completions (first), then
   * handle a pull answer and pull again when there is a reason to. The gate is read when a pull
   * answer is harvested and when a pull is sent, so an answer applied earlier in this very step
   * that fenced or suspended the session stops pulling at once.
   */
  public void tick(long now, PullGate gate) {
    recordFinishedRuns();
    harvestCompletions(now);
    deliverCompletions(now);
    harvestPull(now, gate);
    maybePull(now, gate);
  }

  /** {@link #tick(long, PullGate)} with a gate that does not change during the step. */
  public void tick(long now, Optional<SessionLease> permit, boolean sessionEnded) {
    tick(now, PullGate.fixed(permit, sessionEnded));
  }

  /** Cancels these runs (a heartbeat's {@code cancelRuns}); unknown ones are ignored. */
  public void cancel(List<RunId> runIds) {
    for (RunId id : runIds) {
      for (LiveRun r : running.values()) {
        if (r.runId.equals(id.value())) {
          r.cancellation.cancel(CancellationSignal.DEFAULT_REASON);
        }
      }
    }
  }

  /** Cancels every running run cooperatively (drain timeout, second signal). */
  public void cancelAll(Failure reason) {
    for (LiveRun r : running.values()) {
      r.cancellation.cancel(reason);
    }
  }

  /** Stops pulling at once; a parked pull is aborted. Runs and completions go on. */
  public void beginDrain() {
    draining = true;
    if (pull != null && pull.future != null && !pull.future.isDone()) {
      ingress.abortPulls();
    }
  }

  /** A hint that work is queued (heartbeat {@code workAvailable}). */
  public void workAvailable() {
    pullWanted = true;
  }

  /** Stops pulling for the rest of this session (fence, drift, credential rejection). */
  public void sessionLost() {
    if (pull != null && pull.future != null && !pull.future.isDone()) {
      ingress.abortPulls();
    }
  }

  // ------------------------------------------------------------------ queries

  /** Runs held: running, and results waiting for delivery (for heartbeats and status). */
  public RunCounts runCounts() {
    return new RunCounts(running.size(), deliveries.size());
  }

  /** True when no run is held and no pull is outstanding: the session may go offline. */
  public boolean settled() {
    return running.isEmpty() && deliveries.isEmpty() && pull == null;
  }

  /** True while a pull is on the wire or waiting to be resent. */
  public boolean pullOutstanding() {
    return pull != null;
  }

  // ------------------------------------------------------------------ runs

  private void recordFinishedRuns() {
    List<LiveRun> done = new ArrayList<>();
    for (LiveRun r : running.values()) {
      if (r.handle.result().isDone()) {
        done.add(r);
      }
    }
    if (done.isEmpty()) {
      return;
    }
    List<JournalRecord> records = new ArrayList<>(done.size());
    List<io.ql3.worker.journal.RunResult> results = new ArrayList<>(done.size());
    for (LiveRun r : done) {
      ExecutionResult er = r.handle.result().join();
      io.ql3.worker.journal.RunResult jr = JournalMapping.toJournal(er.outcome(), er.failure(), er.run());
      results.add(jr);
      records.add(new JournalRecord.ResultRecorded(r.runId, r.attempt, jr));
    }
    // The result is durable before its completion is sent: one group commit for all of them.
    appendAll(records);
    for (int i = 0; i < done.size(); i++) {
      LiveRun r = done.get(i);
      running.remove(r.key);
      queueDelivery(r.offer, results.get(i), false);
      listener.runFinished(r.runId, r.attempt, results.get(i));
    }
    pullWanted = true; // a slot may be free
  }

  private void queueDelivery(JournalRecord.OfferAccepted offer, io.ql3.worker.journal.RunResult result, boolean redelivery) {
    RunKey key = offer.runKey();
    if (deliveries.containsKey(key)) {
      return;
    }
    CompleteRequest request = JournalMapping.completion(new RunFact(offer, null, -1, -1, result, null));
    deliveries.put(key, new Delivery(key, new SessionId(offer.sessionId()), new RunId(offer.runId()),
        request, redelivery, newBackoff()));
  }

  private Backoff newBackoff() {
    return new Backoff(settings.retryBase().toNanos(), settings.retryMax().toNanos(), random);
  }

  private void deliverCompletions(long now) {
    int inFlight = 0;
    for (Delivery d : deliveries.values()) {
      if (d.future != null) {
        inFlight++;
      }
    }
    for (Delivery d : deliveries.values()) {
      if (inFlight >= MAX_COMPLETIONS_IN_FLIGHT) {
        return;
      }
      if (d.future != null || d.notBefore.pending(now)) {
        continue;
      }
      d.future = ingress.complete(d.session, d.runId, d.request);
      d.future.whenComplete((r, e) -> wake.run());
      inFlight++;
    }
  }

  private void harvestCompletions(long now) {
    List<CompletableFuture<Long>> acks = new ArrayList<>();
    Iterator<Delivery> it = deliveries.values().iterator();
    while (it.hasNext()) {
      Delivery d = it.next();
      if (d.future == null || !d.future.isDone()) {
        continue;
      }
      Answer<CompleteResponse> answer = Answers.of(d.future);
      d.future = null;
      Reaction reaction = Reactions.of(Operation.COMPLETE, answer.kind());
      if (answer instanceof Answer.Success<CompleteResponse> ok) {
        Optional<Drift> drift = DriftCheck.complete(ok.value(), d.runId, d.request.attempt());
        if (drift.isPresent()) {
          answer = new Answer.Refusal<>(io.ql3.worker.contract.AnswerKind.DRIFT, 200, null, Optional.empty(),
              null, "drift: " + drift.get().detail());
          reaction = Reaction.RESEND_AND_FAIL_CLOSED;
          listener.executionDrift(drift.get());
        }
      }
      switch (reaction) {
        case APPLY -> {
          CompleteResponse resp = ((Answer.Success<CompleteResponse>) answer).value();
          Disposition disposition = resp.disposition() == io.ql3.worker.contract.Disposition.DUPLICATE
              ? Disposition.DUPLICATE : Disposition.ACCEPTED;
          settled(d, disposition, acks);
          it.remove();
          listener.completionDelivered(d.runId.value(), d.request.attempt(), resp.disposition().wire());
        }
        case SETTLE_SUPERSEDED -> {
          if (!d.redelivery) {
            acks.add(journal.appendAsync(new JournalRecord.Superseded(d.runId.value(), d.request.attempt())));
          }
          it.remove();
          listener.completionSuperseded(d.runId.value(), d.request.attempt());
          paths.cleanUp(d.runId.value(), d.request.attempt());
        }
        case SETTLE_UNDELIVERABLE, SETTLE_UNDELIVERABLE_STOP_PULLING -> {
          // No resend can change this answer: settle it so drain and the next register go on; the
          // server reclaims the run by its lease (section 6 clarifications).
          settled(d, Disposition.UNDELIVERABLE, acks);
          it.remove();
          listener.completionUndeliverable(d.runId.value(), d.request.attempt(), answer.toString());
          listener.executionAnswered(Operation.COMPLETE, answer);
        }
        case RESEND -> {
          d.notBefore.set(now + retryDelay(d.backoff, Operation.COMPLETE, answer));
          listener.completionRetry(d.runId.value(), d.request.attempt(), answer.toString());
        }
        case SUSPEND, RESEND_AND_FAIL_CLOSED -> {
          // Rejected credentials, or a drifting answer: the run's result must still reach the
          // server; keep it and try again later, loudly. The session stops pulling at once.
          d.notBefore.set(now + d.backoff.nextDelayNanos());
          listener.completionRefused(d.runId.value(), d.request.attempt(), answer.toString());
          listener.executionAnswered(Operation.COMPLETE, answer);
        }
        case FENCE, REGISTER_AGAIN, REPLAN_FOR_HTTP1 ->
            throw new IllegalStateException("no complete reaction " + reaction);
      }
    }
    // Acknowledgements may ride the next group commit: nothing waits for them here. A failed
    // journal surfaces on the next append.
    if (!acks.isEmpty()) {
      pullWanted = true;
    }
  }

  /** A completion is settled (acknowledged, duplicate or undeliverable): recorded; the caller ends the delivery. */
  private void settled(Delivery d, Disposition disposition, List<CompletableFuture<Long>> acks) {
    if (!d.redelivery) {
      acks.add(journal.appendAsync(new JournalRecord.CompletionAcknowledged(
          d.runId.value(), d.request.attempt(), disposition)));
    }
    paths.cleanUp(d.runId.value(), d.request.attempt());
  }

  /** The backoff's next delay, or the server's retry-after capped by the reaction table's rule when longer. */
  private static long retryDelay(Backoff backoff, Operation op, Answer<?> answer) {
    long delay = backoff.nextDelayNanos();
    if (answer.retryAfter().isPresent()) {
      delay = Math.max(delay, Reactions.cappedRetryAfter(op, answer.retryAfter().get(), 0).toNanos());
    }
    return delay;
  }

  // ------------------------------------------------------------------ pulls

  private void maybePull(long now, PullGate gate) {
    if (draining) {
      return;
    }
    if (pull != null) {
      if (pull.future == null && !pullNotBefore.pending(now)) {
        Optional<SessionLease> permit = gate.permit(now); // read now: this step may have fenced it
        if (permit.isPresent() && permit.get().equals(pull.lease)) {
          sendPull(pull); // resend the very same bytes (same pullId)
        }
      }
      return;
    }
    if (pullNotBefore.pending(now) || !pullWanted && !nextPullAt.reached(now)) {
      return;
    }
    Optional<SessionLease> permit = gate.permit(now); // read now: this step may have fenced it
    if (permit.isEmpty() || permit.get().equals(abandonedLease)) {
      return;
    }
    int free = freeSlots.getAsInt();
    if (free <= 0) {
      return; // a freed slot sets pullWanted again
    }
    int maxRuns = Math.min(free, settings.pullPage());
    boolean h2 = ingress.protocol().orElse(null) == Protocol.H2;
    int waitMs = h2 ? (int) Math.min(settings.longPoll().toMillis(), PullRequest.MAX_WAIT_MS) : 0;
    PullId pullId = ids.nextPullId();
    SessionLease lease = permit.get();
    PullRequest request = new PullRequest(lease.generation(), maxRuns, pullId, waitMs);
    // The reservation is durable before the request leaves.
    journal.append(new JournalRecord.PullReserved(pullId.value(), maxRuns));
    pullWanted = false;
    nextPullAt.clear();
    pull = new PendingPull(lease, request, now, h2);
    sendPull(pull);
  }

  private void sendPull(PendingPull p) {
    // A long poll goes out only on h2, its resends too: see onHttp1Connection.
    p.future = p.longPoll
        ? ingress.longPoll(p.lease.sessionId(), p.request, policy)
        : ingress.pull(p.lease.sessionId(), p.request, policy);
    p.future.whenComplete((r, e) -> wake.run());
  }

  private void harvestPull(long now, PullGate gate) {
    PendingPull p = pull;
    if (p == null) {
      return;
    }
    // Read now: a completion answer earlier in this step may have fenced or suspended the session.
    Optional<SessionLease> permit = gate.permit(now);
    boolean sessionEnded = gate.sessionEnded();
    // Give a pull up only when its session can never pull again; a suspended session keeps it
    // so the same pullId is resent (and its leased offers replayed) once it is active again.
    boolean giveUp = draining || sessionEnded || permit.isPresent() && !permit.get().equals(p.lease);
    if (p.future == null) {
      if (giveUp) {
        closePull(p);
      } else if (p.http1Blocked && running.isEmpty() && deliveries.isEmpty()) {
        abandonPull(p);
      }
      return;
    }
    if (!p.future.isDone()) {
      return;
    }
    Answer<PullResponse> answer = Answers.of(p.future);
    p.future = null;
    p.mayHaveReachedServer |= answer.kind().mayHaveBeenApplied();
    switch (Reactions.of(Operation.PULL, answer.kind())) {
      case APPLY -> {
        PullResponse resp = ((Answer.Success<PullResponse>) answer).value();
        Optional<Drift> drift = DriftCheck.pull(resp, p.request);
        if (drift.isPresent()) {
          closePull(p);
          listener.executionDrift(drift.get());
          return;
        }
        // Executed only while its session may still run it (a suspension does not end the lease);
        // never after a fence, an expiry or a drift, even one applied earlier in this step.
        int launched = acceptOffers(p, resp, !sessionEnded);
        scheduleNextPull(now, p, resp, launched);
      }
      case RESEND -> {
        if (giveUp) {
          closePull(p);
        } else {
          p.http1Blocked = false;
          pullNotBefore.set(now + retryDelay(pullBackoff, Operation.PULL, answer));
        }
      }
      case REPLAN_FOR_HTTP1 -> {
        if (giveUp) {
          closePull(p);
        } else {
          onHttp1Connection(now, p);
        }
      }
      case SUSPEND -> {
        // Credentials refused: pulling stops at once. A try that may have been applied keeps its
        // bytes (same pullId) until a definite answer, so the runs it leased are replayed.
        if (!p.mayHaveReachedServer || giveUp) {
          closePull(p);
        } else {
          pullNotBefore.set(now + pullBackoff.nextDelayNanos());
        }
        listener.executionAnswered(Operation.PULL, answer);
      }
      case FENCE -> {
        closePull(p);
        listener.executionAnswered(Operation.PULL, answer);
      }
      case REGISTER_AGAIN, SETTLE_SUPERSEDED, SETTLE_UNDELIVERABLE, SETTLE_UNDELIVERABLE_STOP_PULLING,
          RESEND_AND_FAIL_CLOSED -> throw new IllegalStateException("no pull reaction for " + answer);
    }
  }

  /**
   * A long poll (chosen on h2) whose next try would go out on http/1.1, where the transport
   * refused it unsent. Contract ql3w-v1.md: on http/1.1 {@code waitMs} must never delay a due
   * heartbeat nor a pending completion by more than one cadence period (section 1, lines 15-21);
   * a try after an unknown outcome resends the identical bytes (section 3, lines 75-76; section 6,
   * line 265), so the {@code waitMs} of a sent pullId cannot be shortened; and a replay whose
   * original answer held no offers is a fresh pull (section 5, lines 180-182), which the server may
   * park for the whole {@code waitMs}. Hence:
   *
   * <ul>
   *   <li>no try of it can have reached the server: its pullId is retired (reservation closed)
   *       and a pull sized for http/1.1 replaces it at once;
   *   <li>otherwise its answer, and the runs it may have leased, can only be learned on h2: no
   *       other pull under this session (its slots may be taken by those runs), the resend keeps
   *       trying (it goes out if the connection speaks h2 again), and once no run of the session
   *       is running or waiting for delivery the pull is given up and the session ends
   *       ({@link PlaneListener#pullOutcomeUnrecoverable}); the next register fences it (lines
   *       129-130) and the server puts whatever the lost answer leased back in its queue, as after
   *       a restart with an open reservation. Section 7 rule 4 (lines 287-289) holds: the new
   *       session waits for every run of the old one to settle.
   * </ul>
   */
  private void onHttp1Connection(long now, PendingPull p) {
    if (!p.mayHaveReachedServer) {
      closePull(p);
      pullWanted = true;
      return;
    }
    p.http1Blocked = true;
    pullNotBefore.set(now + pullBackoff.nextDelayNanos());
    if (running.isEmpty() && deliveries.isEmpty()) {
      abandonPull(p);
    }
  }

  private void abandonPull(PendingPull p) {
    closePull(p);
    abandonedLease = p.lease;
    listener.pullOutcomeUnrecoverable("the answer of long poll " + p.request.pullId().value()
        + " was lost on h2 and the connection now speaks http/1.1, where its identical resend would block"
        + " the one connection: ending the session so the server reclaims what it leased");
  }

  private void closePull(PendingPull p) {
    journal.append(new JournalRecord.PullClosed(p.request.pullId().value()));
    pull = null;
  }

  /**
   * After an answer: offers that all failed to launch (rejected, deduplicated or refused by their
   * executor) back off like a failure, so that offers that are always rejected cost one pull (and
   * one journal force) per backoff step, not one per step (flash wear on edge devices).
   */
  private void scheduleNextPull(long now, PendingPull p, PullResponse resp, int launched) {
    if (!resp.offers().isEmpty()) {
      if (launched == 0) {
        pullNotBefore.set(now + pullBackoff.nextDelayNanos());
      } else {
        pullBackoff.reset();
      }
      pullWanted = true; // more may be queued; slots decide
      return;
    }
    pullBackoff.reset();
    if (resp.nextPullAfterMs() > 0) {
      nextPullAt.set(now + resp.nextPullAfterMs() * NANOS_PER_MS);
      return;
    }
    // An empty answer after a real long poll is itself the reason to pull again; an empty answer
    // that came back early (a server that does not park) waits for a hint: no hot loop.
    long heldMs = (now - p.sentAt) / NANOS_PER_MS;
    if (p.request.waitMs() > 0 && heldMs * 2 >= p.request.waitMs()) {
      pullWanted = true;
    }
  }

  /**
   * Handles the offers of one pull answer with ONE group commit before anything runs: for each
   * new offer, "offer accepted" and then either "run started" (prepared, about to launch) or its
   * result (refused, or preparation failed); then the reservation is closed. Only after that
   * force are the prepared runs launched: both write-ahead rules hold (the offer is durable before
   * it is acted on, the start is durable before the launch) at the cost of one force per answer.
   */
  private int acceptOffers(PendingPull p, PullResponse resp, boolean mayRun) {
    JournalFacts facts = journal.facts();
    List<JournalRecord> records = new ArrayList<>();
    List<PreparedStart> prepared = new ArrayList<>();
    List<FailedStart> failed = new ArrayList<>();
    for (Offer offer : resp.offers()) {
      RunKey key = new RunKey(offer.runId().value(), offer.attempt());
      if (running.containsKey(key) || deliveries.containsKey(key)) {
        continue; // already ours: running or being delivered
      }
      Optional<RunFact> known = facts.recentCompletion(key.runId(), key.attempt());
      if (known.isPresent()) {
        // Completed before: answer from the journal, never execute again.
        RunFact f = known.get();
        queueDelivery(f.offer(), f.result(), f.settlement() != null);
        listener.offerDeduplicated(key.runId(), key.attempt());
        continue;
      }
      if (isHeld(facts, key)) {
        continue;
      }
      JournalRecord.OfferAccepted accepted = new JournalRecord.OfferAccepted(
          offer.runId().value(), offer.attempt(), p.lease.sessionId().value(), p.lease.generation(),
          offer.executor(), offer.specDigest(), offer.idempotencyKey(), offer.timeoutMs());
      records.add(accepted);
      if (!mayRun) {
        // The session ended while this answer was on its way: the server reclaims these runs, so
        // none is executed; each is completed as never started, so it can be offered again at once.
        settle(accepted, Outcome.CANCELLED, SESSION_ENDED, records, failed);
        continue;
      }
      Optional<Failure> refusal = refusal(offer);
      if (refusal.isPresent()) {
        listener.offerRejected(accepted.runId(), accepted.attempt(), refusal.get().message());
        settle(accepted, Outcome.FAILED, refusal.get(), records, failed);
        continue;
      }
      CancellationSignal cancellation = new CancellationSignal();
      ExecutionContext ctx = new ExecutionContext(
          offer.runId(), offer.attempt(), offer.idempotencyKey(),
          paths.workDirectory(offer.runId().value(), offer.attempt()),
          paths.outputLog(offer.runId().value(), offer.attempt()),
          Duration.ofMillis(offer.timeoutMs()), cancellation, clock);
      try {
        Executor executor = executors.find(offer.executor()).orElseThrow();
        PreparedRun run = executor.prepare(offer.executorSpec().orElseThrow(), ctx);
        prepared.add(new PreparedStart(accepted, run, cancellation));
        // Durable BEFORE launch: a crash after this point reports the run uncertain, never reruns it.
        records.add(new JournalRecord.RunStarted(accepted.runId(), accepted.attempt(), -1, -1));
      } catch (PrepareFailedException e) {
        settle(accepted, Outcome.FAILED, e.failure(), records, failed);
      } catch (RuntimeException e) {
        // An executor bug: this offer fails (never started); the answer and its other offers go on.
        settle(accepted, Outcome.FAILED, executorError(offer.executor(), e), records, failed);
      }
    }
    records.add(new JournalRecord.PullClosed(p.request.pullId().value()));
    int launched = 0;
    try {
      appendAll(records);
      pull = null;
      for (FailedStart f : failed) {
        queueDelivery(f.accepted(), f.result(), false);
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
      // Whatever failed above (the journal, a launch): no prepared run is left holding its log.
      for (int i = launched; i < prepared.size(); i++) {
        prepared.get(i).run.discard();
      }
    }
    return launched;
  }

  private static Failure executorError(String executor, RuntimeException e) {
    return new Failure(FailureCategory.TRANSIENT, "executor_error",
        fit("executor " + executor + " failed to prepare the run: " + e));
  }

  private static String fit(String m) {
    return m.codePointCount(0, m.length()) > Failure.MAX_MESSAGE_CHARS
        ? m.substring(0, m.offsetByCodePoints(0, Failure.MAX_MESSAGE_CHARS)) : m;
  }

  private static final Failure SESSION_ENDED = new Failure(FailureCategory.TRANSIENT, "not_started",
      "the offer arrived after its session ended (fenced, expired or drifted); never started");

  /** Records an offer that will never run with its result (riding the same group commit). */
  private static void settle(JournalRecord.OfferAccepted accepted, Outcome outcome, Failure failure,
      List<JournalRecord> records, List<FailedStart> failed) {
    io.ql3.worker.journal.RunResult result = JournalMapping.toJournal(outcome, failure, RunResult.NOT_RUN);
    records.add(new JournalRecord.ResultRecorded(accepted.runId(), accepted.attempt(), result));
    failed.add(new FailedStart(accepted, result));
  }

  private static boolean isHeld(JournalFacts facts, RunKey key) {
    for (List<RunFact> list : List.of(facts.accepted(), facts.running(), facts.pendingCompletions())) {
      for (RunFact f : list) {
        if (f.key().equals(key)) {
          return true;
        }
      }
    }
    return false;
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
      return Optional.of(offerRejected("executor " + offer.executor() + " is not enabled on this worker"));
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

  /** Queued as one journal entry: one write and one force, never split by the writer's timing. */
  private void appendAll(List<JournalRecord> records) {
    awaitAll(journal.appendAllAsync(records));
  }

  private static void awaitAll(List<CompletableFuture<Long>> writes) {
    for (CompletableFuture<Long> w : writes) {
      w.join(); // a failed journal throws: the agent stops taking work
    }
  }

  // ------------------------------------------------------------------ state holders

  private record FailedStart(JournalRecord.OfferAccepted accepted, io.ql3.worker.journal.RunResult result) {}

  private record PreparedStart(JournalRecord.OfferAccepted accepted, PreparedRun run, CancellationSignal cancellation) {}

  private static final class PendingPull {
    final SessionLease lease;
    final PullRequest request;
    final long sentAt;
    /** Chosen for h2 (a parked wait): every try of it goes out only on h2. */
    final boolean longPoll;
    /** Some try's outcome was unknown: the server may have applied it (leased offers). */
    boolean mayHaveReachedServer;
    /** Its last try was refused unsent because the connection speaks http/1.1. */
    boolean http1Blocked;
    CompletableFuture<Answer<PullResponse>> future;

    PendingPull(SessionLease lease, PullRequest request, long sentAt, boolean longPoll) {
      this.lease = lease;
      this.request = request;
      this.sentAt = sentAt;
      this.longPoll = longPoll;
    }
  }

  private static final class Delivery {
    final RunKey key;
    final SessionId session;
    final RunId runId;
    final CompleteRequest request;
    final boolean redelivery;
    final Backoff backoff;
    final Deadline notBefore = new Deadline();
    CompletableFuture<Answer<CompleteResponse>> future;

    Delivery(RunKey key, SessionId session, RunId runId, CompleteRequest request, boolean redelivery, Backoff backoff) {
      this.key = key;
      this.session = session;
      this.runId = runId;
      this.request = request;
      this.redelivery = redelivery;
      this.backoff = backoff;
    }
  }

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
