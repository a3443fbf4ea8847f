package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.runtime.answer.Answers;
import io.ql3.worker.runtime.answer.Reaction;
import io.ql3.worker.runtime.answer.Reactions;
import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.transport.Backoff;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Recorded results on their way to the server: each completion goes to the session its run was
 * offered under, whatever that session's state is now, at most {@value #MAX_IN_FLIGHT} at a time,
 * and each answer is handled by its row of the {@link Reactions} table. A result leaves the outbox
 * when it is settled (accepted, duplicate, superseded or undeliverable) and that is journaled in
 * the step's entry ({@link StepCommit}).
 */
final class CompletionOutbox {
  static final int MAX_IN_FLIGHT = 16;

  private final PlaneIngress ingress;
  private final RunPaths paths;
  private final PlaneListener listener;
  private final Runnable wake;
  private final Supplier<Backoff> backoffs;

  /** Recorded results waiting for (or in) delivery, by attempt. */
  private final Map<RunKey, Delivery> deliveries = new LinkedHashMap<>();

  /** Settlements queued in the journal and not yet known durable, oldest first. */
  private final ArrayDeque<Settling> settling = new ArrayDeque<>();

  CompletionOutbox(
      PlaneIngress ingress,
      RunPaths paths,
      PlaneListener listener,
      Runnable wake,
      Supplier<Backoff> backoffs) {
    this.ingress = ingress;
    this.paths = paths;
    this.listener = listener;
    this.wake = wake;
    this.backoffs = backoffs;
  }

  /**
   * Queues a recorded result; {@code redelivery}: already settled in the journal, only the server
   * is told again.
   */
  void queue(
      JournalRecord.OfferAccepted offer,
      io.ql3.worker.journal.RunResult result,
      boolean redelivery) {
    RunKey key = offer.runKey();
    if (deliveries.containsKey(key)) {
      return;
    }
    CompleteRequest request =
        JournalMapping.completion(new RunFact(offer, null, -1, -1, result, null));
    deliveries.put(
        key,
        new Delivery(
            key,
            new SessionId(offer.sessionId()),
            new RunId(offer.runId()),
            request,
            redelivery,
            backoffs.get()));
  }

  boolean holds(RunKey key) {
    return deliveries.containsKey(key);
  }

  int size() {
    return deliveries.size();
  }

  boolean isEmpty() {
    return deliveries.isEmpty();
  }

  /** Sends what is due, up to the in-flight bound. */
  void deliver(long now) {
    int inFlight = 0;
    for (Delivery d : deliveries.values()) {
      if (d.future != null) {
        inFlight++;
      }
    }
    for (Delivery d : deliveries.values()) {
      if (inFlight >= MAX_IN_FLIGHT) {
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

  /**
   * Applies the answers that arrived.
   *
   * @return true when a completion was settled (a slot or a journal window entry may be free)
   */
  boolean harvest(long now, StepCommit step) {
    boolean settledAny = false;
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
          // Section 6: a drifting answer fails the session closed; the result is kept and resent.
          answer =
              new Answer.Refusal<>(
                  AnswerKind.DRIFT,
                  200,
                  null,
                  Optional.empty(),
                  null,
                  "drift: " + drift.get().detail());
          reaction = Reaction.RESEND_AND_FAIL_CLOSED;
          listener.executionDrift(drift.get());
        }
      }
      switch (reaction) {
        case APPLY -> {
          CompleteResponse resp = ((Answer.Success<CompleteResponse>) answer).value();
          settle(d, JournalMapping.toJournal(resp.disposition()), step);
          it.remove();
          settledAny = true;
          listener.completionDelivered(
              d.runId.value(), d.request.attempt(), resp.disposition().wire());
        }
        case SETTLE_SUPERSEDED -> {
          if (!d.redelivery) {
            journalSettlement(
                d, new JournalRecord.Superseded(d.runId.value(), d.request.attempt()), step);
          }
          paths.cleanUp(d.runId.value(), d.request.attempt());
          it.remove();
          settledAny = true;
          listener.completionSuperseded(d.runId.value(), d.request.attempt());
        }
        case SETTLE_UNDELIVERABLE, SETTLE_UNDELIVERABLE_STOP_PULLING -> {
          // No resend can change this answer: settle it so drain and the next register go on; the
          // server reclaims the run by its lease (section 6 clarifications).
          settle(d, Disposition.UNDELIVERABLE, step);
          it.remove();
          settledAny = true;
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
        case FENCE, STOP_PULLING, REGISTER_AGAIN, REPLAN_FOR_HTTP1 ->
            throw new IllegalStateException("no complete reaction " + reaction);
      }
    }
    return settledAny;
  }

  /**
   * Journals the settlement in the step's entry (nothing waits for it: a slot it frees counts once
   * it is queued, see {@link #settling()}; a failed journal surfaces on the step's commit).
   */
  private void settle(Delivery d, Disposition disposition, StepCommit step) {
    if (!d.redelivery) {
      journalSettlement(
          d,
          new JournalRecord.CompletionAcknowledged(
              d.runId.value(), d.request.attempt(), disposition),
          step);
    }
    paths.cleanUp(d.runId.value(), d.request.attempt());
  }

  /**
   * Queues the settlement in the step's entry. If the entry is never queued, the delivery goes back
   * into the outbox: its resend is answered again (duplicate, or the same refusal) and settled
   * then.
   */
  private void journalSettlement(Delivery d, JournalRecord settlement, StepCommit step) {
    pruneDurable(); // bounded even while nothing asks for settling()
    CompletableFuture<Long> write = new CompletableFuture<>();
    settling.addLast(new Settling(d.key, write));
    step.add(
        List.of(settlement),
        new StepCommit.Part() {
          @Override
          public void durable(List<CompletableFuture<Long>> writes) {
            forward(writes.get(0), write);
          }

          @Override
          public void abandon(RuntimeException cause) {
            write.completeExceptionally(cause);
            // Back into the outbox, in place of a redelivery of the same attempt that a re-offer
            // queued later in this step (it would settle without a journal record); an answer
            // that redelivery is waiting for is this delivery's now.
            Delivery redelivery = deliveries.get(d.key);
            d.future = redelivery == null ? null : redelivery.future;
            if (redelivery == null || redelivery.redelivery) {
              deliveries.put(d.key, d);
            }
          }
        });
  }

  private static void forward(CompletableFuture<Long> from, CompletableFuture<Long> to) {
    from.whenComplete(
        (seq, e) -> {
          if (e == null) {
            to.complete(seq);
          } else {
            to.completeExceptionally(e);
          }
        });
  }

  /**
   * The settlements queued in the journal and not known durable: a record queued now lands behind
   * them. The journal completes the futures of written records in order (a refused one fails at
   * once), so the done ones are mostly at the head; the rest are skipped. One that is not done may
   * already be in the facts (they are published just before the futures complete).
   */
  List<Settling> settling() {
    pruneDurable();
    List<Settling> out = new ArrayList<>(settling.size());
    for (Settling st : settling) {
      if (!st.write.isDone()) {
        out.add(st);
      }
    }
    return out;
  }

  private void pruneDurable() {
    while (!settling.isEmpty() && settling.peekFirst().write.isDone()) {
      settling.pollFirst();
    }
  }

  /** True when this attempt's settlement is queued in the journal and not known durable. */
  boolean settling(RunKey key) {
    for (Settling st : settling) {
      if (st.key.equals(key) && !st.write.isDone()) {
        return true;
      }
    }
    return false;
  }

  /** A settlement on its way to the disk: the attempt it settles and its journal write. */
  static final class Settling {
    final RunKey key;
    final CompletableFuture<Long> write;

    /** A wake is attached to {@link #write}. */
    boolean watched;

    Settling(RunKey key, CompletableFuture<Long> write) {
      this.key = key;
      this.write = write;
    }
  }

  /**
   * True when every settlement journaled so far is durable; if one is not yet, the cadence is woken
   * when it is.
   */
  boolean settlementsDurable() {
    // The journal completes written records' futures in order: the last one done, all are.
    Settling last = settling.peekLast();
    if (last == null || last.write.isDone()) {
      return true;
    }
    if (!last.watched) { // each settlement is watched once: no wake loop
      last.watched = true;
      last.write.whenComplete((seq, e) -> wake.run());
    }
    return false;
  }

  /**
   * The backoff's next delay, or the server's retry-after capped by the reaction table's rule when
   * longer.
   */
  static long retryDelay(Backoff backoff, Operation op, Answer<?> answer) {
    long delay = backoff.nextDelayNanos();
    if (answer.retryAfter().isPresent()) {
      delay =
          Math.max(delay, Reactions.cappedRetryAfter(op, answer.retryAfter().get(), 0).toNanos());
    }
    return delay;
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

    Delivery(
        RunKey key,
        SessionId session,
        RunId runId,
        CompleteRequest request,
        boolean redelivery,
        Backoff backoff) {
      this.key = key;
      this.session = session;
      this.runId = runId;
      this.request = request;
      this.redelivery = redelivery;
      this.backoff = backoff;
    }
  }
}
