package io.ql3.worker.runtime.plane;

import io.ql3.worker.capacity.QueuedAhead;
import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.runtime.answer.Answers;
import io.ql3.worker.runtime.answer.Reactions;
import io.ql3.worker.runtime.cadence.Deadline;
import io.ql3.worker.runtime.session.SessionLease;
import io.ql3.worker.transport.Backoff;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The pull loop: at most one pull at a time, in an explicit {@link PullState}. A pull is reserved
 * in the journal before it leaves; a try whose outcome is unknown keeps its bytes (same pullId)
 * until a definite answer; the session's permit is read when a pull is sent and when its answer is
 * harvested (stop pulling at once); what each answer does is its row of {@link Reactions}.
 */
final class PullLoop {
  private static final long NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Journal journal;
  private final PlaneIngress ingress;
  private final OfferPolicy policy;
  private final PlaneSettings settings;
  private final Uuid7Generator ids;
  private final FreeSlots freeSlots;
  private final PlaneListener listener;
  private final Runnable wake;
  private final OfferIntake intake;

  /** True when the plane holds no run (none running, no completion waiting). */
  private final BooleanSupplier nothingHeld;

  /** Its settlements on their way to the disk count as free slots for a reservation behind them. */
  private final CompletionOutbox outbox;

  private final Backoff backoff;

  private PullState state = PullState.IDLE;
  private PendingPull pull;
  private boolean draining;
  private boolean wanted = true;
  private final NextPullHint hint = new NextPullHint();
  private final Deadline notBefore = new Deadline();

  /** The session whose lost long-poll answer could not be recovered: never pulled under again. */
  private SessionLease abandonedLease;

  PullLoop(
      Journal journal,
      PlaneIngress ingress,
      OfferPolicy policy,
      PlaneSettings settings,
      Uuid7Generator ids,
      FreeSlots freeSlots,
      PlaneListener listener,
      Runnable wake,
      OfferIntake intake,
      BooleanSupplier nothingHeld,
      CompletionOutbox outbox,
      Backoff backoff) {
    this.journal = journal;
    this.ingress = ingress;
    this.policy = policy;
    this.settings = settings;
    this.ids = ids;
    this.freeSlots = freeSlots;
    this.listener = listener;
    this.wake = wake;
    this.intake = intake;
    this.nothingHeld = nothingHeld;
    this.outbox = outbox;
    this.backoff = backoff;
  }

  PullState state() {
    return state;
  }

  /**
   * A reason to pull again: a slot may be free. A server's hint still holds ({@link NextPullHint}).
   */
  void wanted() {
    wanted = true;
  }

  /** The server says work is queued (heartbeat {@code workAvailable}): its earlier hint is over. */
  void workAvailable() {
    hint.woken();
    wanted = true;
  }

  /** Stops pulling for good; a parked pull is aborted (its answer is then outcome-unknown). */
  void beginDrain() {
    draining = true;
    abortIfParked();
  }

  /**
   * Aborts a parked pull (the session stopped pulling); it is resent or given up by the next steps.
   */
  void abortIfParked() {
    if (state == PullState.ON_THE_WIRE && !pull.future.isDone()) {
      ingress.abortPulls();
    }
  }

  private void move(PullState next) {
    state = state.to(next);
  }

  /**
   * Applies the answer of the pull on the wire, if it arrived; gives up a kept pull whose session
   * is over.
   */
  void harvest(long now, PullGate gate, StepCommit step) {
    PendingPull p = pull;
    if (state == PullState.IDLE) {
      return;
    }
    // Read now: a completion answer earlier in this step may have fenced or suspended the session.
    Optional<SessionLease> permit = gate.permit(now);
    boolean sessionEnded = gate.sessionEnded();
    // Give a pull up only when its session can never pull again; a suspended session keeps it
    // so the same pullId is resent (and its leased offers replayed) once it is active again.
    boolean giveUp =
        draining || sessionEnded || permit.isPresent() && !permit.get().equals(p.lease);
    if (state != PullState.ON_THE_WIRE) {
      if (giveUp) {
        close(p);
      } else if ((state == PullState.BLOCKED_ON_HTTP1 || state == PullState.ANSWER_LOST)
          && nothingHeld.getAsBoolean()) {
        abandon(p);
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
          close(p);
          listener.executionDrift(drift.get());
          return;
        }
        // Executed only while its session may still run it (a suspension does not end the lease);
        // never after a fence, an expiry or a drift, even one applied earlier in this step.
        int launching;
        try {
          launching = intake.accept(p.lease, p.request.pullId(), resp, !sessionEnded, step);
        } catch (RuntimeException e) {
          // Nothing was queued: the same pullId is resent after a backoff (an answer failing every
          // time costs a pull per backoff step); a failed journal stops the agent.
          move(PullState.AWAITING_RESEND);
          notBefore.set(now + backoff.nextDelayNanos());
          throw e;
        }
        // Its reservation's close is queued with the offers; the next pull may be reserved behind
        // them in this very step (maybeSend), sized by what they take.
        pull = null;
        move(PullState.IDLE);
        scheduleNext(now, p, resp, launching);
        step.add(
            List.of(),
            new StepCommit.Part() {
              @Override
              public void durable(List<CompletableFuture<Long>> writes) {}

              @Override
              public void abandon(RuntimeException cause) {
                unrecorded(now, p);
              }
            });
      }
      case RESEND -> {
        if (giveUp) {
          close(p);
        } else {
          notBefore.set(now + CompletionOutbox.retryDelay(backoff, Operation.PULL, answer));
          move(PullState.AWAITING_RESEND);
        }
      }
      case REPLAN_FOR_HTTP1 -> {
        if (giveUp) {
          close(p);
        } else {
          onHttp1Connection(now, p);
        }
      }
      case SUSPEND -> {
        // Credentials refused: pulling stops at once. A try that may have been applied keeps its
        // bytes (same pullId) until a definite answer, so the runs it leased are replayed.
        if (!p.mayHaveReachedServer || giveUp) {
          close(p);
        } else {
          notBefore.set(now + backoff.nextDelayNanos());
          move(PullState.AWAITING_RESEND);
        }
        listener.executionAnswered(Operation.PULL, answer);
      }
      case FENCE -> {
        close(p);
        listener.executionAnswered(Operation.PULL, answer);
      }
      case STOP_PULLING -> {
        // A client bug: pulling stops, the session goes on. This pull is over: when no try of it
        // can have been applied it leased nothing. Otherwise the lost answer may have leased runs
        // this worker can never learn of: once nothing else is held the session ends, so that the
        // server reclaims them (as after a lost long poll).
        listener.executionAnswered(Operation.PULL, answer);
        if (!p.mayHaveReachedServer || giveUp) {
          close(p);
        } else {
          move(PullState.ANSWER_LOST);
          if (nothingHeld.getAsBoolean()) {
            abandon(p);
          }
        }
      }
      case REGISTER_AGAIN,
          SETTLE_SUPERSEDED,
          SETTLE_UNDELIVERABLE,
          SETTLE_UNDELIVERABLE_STOP_PULLING,
          RESEND_AND_FAIL_CLOSED ->
          throw new IllegalStateException("no pull reaction for " + answer);
    }
  }

  /**
   * Resends a kept pull, or reserves and sends a new one, when there is a reason to and the session
   * may pull now.
   */
  void maybeSend(long now, PullGate gate, StepCommit step) {
    if (draining || state == PullState.ON_THE_WIRE) {
      return;
    }
    if (state != PullState.IDLE) {
      if (state != PullState.ANSWER_LOST && !notBefore.pending(now)) {
        Optional<SessionLease> permit = gate.permit(now); // read now: this step may have fenced it
        if (permit.isPresent() && permit.get().equals(pull.lease)) {
          send(pull); // resend the very same bytes (same pullId)
        }
      }
      return;
    }
    if (notBefore.pending(now) || !wanted && !hint.reached(now)) {
      return; // no reason to pull: the permit is not even read (every step of a busy agent)
    }
    Optional<SessionLease> permit = gate.permit(now); // read now: this step may have fenced it
    if (permit.isEmpty() || permit.get().equals(abandonedLease) || hint.holds(permit.get(), now)) {
      return;
    }
    // A settled run's slot is free once its settlement is durable; the reservation lands behind
    // every settlement queued so far and behind this step's records (the close of the pull just
    // answered, its accepted offers), so it is sized as if they were durable: one force for all.
    // A run that finishes, or an answer that settles one, makes a pull wanted again.
    List<CompletionOutbox.Settling> settling = outbox.settling();
    List<RunKey> settlingKeys = new ArrayList<>(settling.size());
    for (CompletionOutbox.Settling st : settling) {
      settlingKeys.add(st.key);
    }
    int free = freeSlots.behind(new QueuedAhead(settlingKeys, step.closing(), step.accepting()));
    if (free <= 0) {
      return;
    }
    int maxRuns = Math.min(free, settings.pullPage());
    boolean h2 = ingress.protocol().orElse(null) == Protocol.H2;
    int waitMs = h2 ? (int) Math.min(settings.longPoll().toMillis(), PullRequest.MAX_WAIT_MS) : 0;
    PullId pullId = ids.nextPullId();
    SessionLease lease = permit.get();
    PullRequest request = new PullRequest(lease.generation(), maxRuns, pullId, waitMs);
    wanted = false;
    hint.clear();
    PendingPull reserved = new PendingPull(lease, request, now, h2, hint.wakes());
    pull = reserved;
    // The reservation is durable before the request leaves, and with it everything ahead.
    step.add(
        List.of(new JournalRecord.PullReserved(pullId.value(), maxRuns)),
        new StepCommit.Part() {
          @Override
          public void durable(List<CompletableFuture<Long>> writes) {
            try {
              writes.get(0).join();
            } catch (RuntimeException e) {
              unreserved(reserved);
              throw e;
            }
            if (!settlementsLanded(settling)) {
              retire(reserved); // a settlement it counted on was refused: that slot is not free
              wanted = true;
              return;
            }
            send(reserved);
          }

          @Override
          public void abandon(RuntimeException cause) {
            unreserved(reserved);
          }
        });
  }

  /** The reservation just made was refused or never queued: it is not the pending pull. */
  private void unreserved(PendingPull reserved) {
    if (pull == reserved) {
      pull = null;
    }
    wanted = true;
  }

  /**
   * The step that applied {@code p}'s answer never queued its records: nothing of the answer is
   * recorded and {@code p}'s reservation is still open, so {@code p} is kept for a byte-identical
   * resend (the server replays the offers still leased), exactly as after an unknown outcome. A
   * reservation made behind it in the same step was never queued either ({@link #unreserved}).
   */
  private void unrecorded(long now, PendingPull p) {
    pull = p;
    p.mayHaveReachedServer = true;
    move(PullState.AWAITING_RESEND);
    notBefore.set(now + backoff.nextDelayNanos());
  }

  /**
   * True when every settlement whose slot the pull counted is durable (they precede its
   * reservation, which is durable, so they are done); one the journal refused freed nothing.
   */
  private static boolean settlementsLanded(List<CompletionOutbox.Settling> behind) {
    for (CompletionOutbox.Settling st : behind) {
      if (!st.write.isDone() || st.write.isCompletedExceptionally()) {
        return false;
      }
    }
    return true;
  }

  private void send(PendingPull p) {
    move(PullState.ON_THE_WIRE);
    // A long poll goes out only on h2, its resends too: see onHttp1Connection.
    p.future =
        p.longPoll
            ? ingress.longPoll(p.lease.sessionId(), p.request, policy)
            : ingress.pull(p.lease.sessionId(), p.request, policy);
    p.future.whenComplete((r, e) -> wake.run());
  }

  /**
   * A long poll (chosen on h2) whose next try would go out on http/1.1, where the transport refused
   * it unsent: when no try of it can have reached the server, a pull sized for http/1.1 replaces it
   * at once; otherwise only h2 can learn its answer ({@code BLOCKED_ON_HTTP1}), and once nothing
   * else is held the session ends so that the server reclaims what that answer leased. The
   * contract's reasons, line by line: docs/runtime.md, "A long poll never goes out on http/1.1".
   */
  private void onHttp1Connection(long now, PendingPull p) {
    if (!p.mayHaveReachedServer) {
      close(p);
      wanted = true;
      return;
    }
    notBefore.set(now + backoff.nextDelayNanos());
    move(PullState.BLOCKED_ON_HTTP1);
    if (nothingHeld.getAsBoolean()) {
      abandon(p);
    }
  }

  private void abandon(PendingPull p) {
    String why =
        state == PullState.ANSWER_LOST
            ? "pull "
                + p.request.pullId().value()
                + " was refused as a client bug after a try whose outcome is unknown, so what it"
                + " leased can no longer be learned: ending the session so the server reclaims it"
            : "the answer of long poll "
                + p.request.pullId().value()
                + " was lost on h2 and the connection now speaks http/1.1, where its identical"
                + " resend would block the one connection: ending the session so the server"
                + " reclaims what it leased";
    close(p);
    abandonedLease = p.lease;
    listener.pullOutcomeUnrecoverable(why);
  }

  private void close(PendingPull p) {
    retire(p);
    move(PullState.IDLE);
  }

  /** Closes {@code p}'s reservation in the journal; it is no longer the pending pull. */
  private void retire(PendingPull p) {
    journal.append(new JournalRecord.PullClosed(p.request.pullId().value()));
    if (pull == p) {
      pull = null;
    }
  }

  /**
   * After an answer: offers that all failed to launch (rejected, deduplicated or refused by their
   * executor) back off like a failure, so that offers that are always rejected cost one pull (and
   * one journal force) per backoff step, not one per step (flash wear on edge devices).
   */
  private void scheduleNext(long now, PendingPull p, PullResponse resp, int launched) {
    if (!resp.offers().isEmpty()) {
      if (launched == 0) {
        notBefore.set(now + backoff.nextDelayNanos());
      } else {
        backoff.reset();
      }
      wanted = true; // more may be queued; slots decide
      return;
    }
    backoff.reset();
    if (resp.nextPullAfterMs() > 0) {
      if (!hint.set(now + resp.nextPullAfterMs() * NANOS_PER_MS, p.lease, p.wakesAtReserve)) {
        wanted = true; // work was announced after this pull went out
      }
      return;
    }
    // An empty answer after a real long poll is itself the reason to pull again; an empty answer
    // that came back early (a server that does not park) waits for a hint: no hot loop.
    long heldMs = (now - p.sentAt) / NANOS_PER_MS;
    if (p.request.waitMs() > 0 && heldMs * 2 >= p.request.waitMs()) {
      wanted = true;
    }
  }
}
