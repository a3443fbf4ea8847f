package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.Limits;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The book of runs: every submitted run by id, the FIFO queue of runs waiting for an offer (a
 * reclaimed run keeps its place), and the run rules of contract section 5 that do not depend on who
 * pulls: submit, lease, reclaim, complete, cancel. Each newly queued run is reported to {@link
 * PendingWakes} for the parked pulls. Which queued runs a session may take is {@link Offers}'s job.
 * Called under the {@link ControlPlane} lock only.
 */
final class RunBook {
  private final Clock clock;
  private final WireCodec wire;
  private final EventLog log;
  private final Answers answers;
  private final SessionTable sessions;
  private final PendingWakes wakes;
  private final String runIdPrefix;

  private final Map<String, Run> runs = new LinkedHashMap<>();

  /** Queued runs in submission order (a reclaimed run keeps its place). */
  private final TreeMap<Long, Run> queue = new TreeMap<>();

  private long runSeq;

  RunBook(
      Clock clock,
      WireCodec wire,
      EventLog log,
      Answers answers,
      SessionTable sessions,
      PendingWakes wakes) {
    this.clock = clock;
    this.wire = wire;
    this.log = log;
    this.answers = answers;
    this.sessions = sessions;
    this.wakes = wakes;
    // Run ids of two server lifetimes never collide (a worker journal may outlive this server's
    // memory).
    this.runIdPrefix = "r" + Long.toString(clock.millis(), 36) + "-";
  }

  /** The queued runs in queue order (a live view: read it, do not change it). */
  Collection<Run> queued() {
    return queue.values();
  }

  /** Takes a queued run out of the queue and leases this attempt of it to the session. */
  void lease(Run r, Session s, long attempt) {
    queue.remove(r.seq);
    r.moveTo(RunState.LEASED);
    r.lease = new Lease(s.workerId, s.sessionId, s.generation, attempt);
    s.leased.add(r);
  }

  /**
   * See {@link ControlPlane#submit}; {@code now} is the submit time (the facade settles parked
   * pulls at the same time).
   */
  Views.SubmitResult submit(RunSubmission sub, long now) {
    if (sub.count() < 1 || sub.count() > 100_000) {
      throw new IllegalArgumentException("count must be in 1..100000");
    }
    if (sub.workerId() != null && !wire.validWorkerId(sub.workerId())) {
      throw new IllegalArgumentException(
          "workerId '" + sub.workerId() + "' is not a contract workerId");
    }
    if (sub.runId() != null) {
      if (sub.count() != 1) {
        throw new IllegalArgumentException("runId can only be given with count 1");
      }
      if (runs.containsKey(sub.runId())) {
        throw new IllegalArgumentException("run " + sub.runId() + " exists");
      }
    }
    String key = sub.idempotencyKey();
    if (sub.delayMs() < 0) {
      throw new IllegalArgumentException("delayMs must be >= 0");
    }
    byte[] spec = wire.canonicalize(sub.spec());
    if (spec.length > Limits.MAX_SPEC_BYTES) {
      throw new IllegalArgumentException(
          "spec is "
              + spec.length
              + " canonical bytes; workers take at most "
              + Limits.MAX_SPEC_BYTES);
    }
    String digest = wire.digest(spec);
    // The contract owns the offer rules: check the first offer of this submission before queuing
    // anything.
    String firstId = sub.runId() != null ? sub.runId() : runIdPrefix + (runSeq + 1);
    wire.checkOffer(
        new OfferData(
            1,
            sub.executor() == null ? "" : sub.executor(),
            key != null ? key : firstId,
            firstId,
            spec,
            digest,
            sub.timeoutMs()));
    Map<String, String> labels = sub.labels() == null ? Map.of() : Map.copyOf(sub.labels());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < sub.count(); i++) {
      long seq = ++runSeq;
      String id = sub.runId() != null ? sub.runId() : runIdPrefix + seq;
      Run r =
          new Run(
              id,
              seq,
              sub.executor(),
              spec,
              digest,
              sub.timeoutMs(),
              key != null ? key : id,
              sub.workerId(),
              labels,
              now,
              now + sub.delayMs());
      runs.put(id, r);
      queue.put(seq, r);
      wakes.arrived.put(seq, r);
      ids.add(id);
    }
    log.event(
        "submit",
        "runs="
            + ids.size()
            + " first="
            + ids.get(0)
            + " executor="
            + sub.executor()
            + (sub.workerId() != null ? " worker=" + sub.workerId() : "")
            + (labels.isEmpty() ? "" : " labels=" + labels));
    return new Views.SubmitResult(ids);
  }

  /**
   * Puts the session's leased runs back in the queue; the attempt stays completable until
   * re-offered.
   */
  void reclaim(Session s, String why) {
    if (s.leased.isEmpty()) {
      return;
    }
    StringBuilder ids = new StringBuilder();
    for (Run r : s.leased) {
      if (r.state != RunState.LEASED) {
        continue;
      }
      r.reclaims++;
      if (r.cancelRequested) {
        r.moveTo(RunState.CANCELLED);
      } else {
        r.moveTo(RunState.QUEUED);
        queue.put(r.seq, r);
        wakes.arrived.put(r.seq, r);
      }
      ids.append(ids.length() == 0 ? "" : ",")
          .append(r.runId)
          .append("->")
          .append(r.state == RunState.QUEUED ? "attempt " + r.nextAttempt() : "cancelled");
    }
    s.leased.clear();
    log.event(
        "reclaim",
        "worker=" + s.workerId + " session=" + s.sessionId + " (" + why + ") runs=" + ids);
  }

  Reply complete(
      String workerId, String sessionId, String runId, byte[] body, Commands.Complete cmd) {
    long now = clock.millis();
    Run r = runs.get(runId);
    if (r == null) {
      return answers.error(ErrorCode.RUN_NOT_LEASED, "unknown run " + runId);
    }
    if (r.lease == null || !r.lease.matches(workerId, sessionId, cmd.generation(), cmd.attempt())) {
      return answers.error(
          ErrorCode.RUN_NOT_LEASED,
          "run "
              + runId
              + " attempt "
              + cmd.attempt()
              + " is not leased to session "
              + sessionId
              + " generation "
              + cmd.generation());
    }
    if (r.completionBytes != null) {
      if (Arrays.equals(r.completionBytes, body)) {
        return Reply.ok(wire.completeResponse(cmd.attempt(), true, runId));
      }
      return answers.error(
          ErrorCode.RUN_NOT_LEASED,
          "run "
              + runId
              + " attempt "
              + cmd.attempt()
              + " was already completed with another body");
    }
    if (r.state == RunState.QUEUED) {
      queue.remove(r.seq);
    }
    Session holder = sessions.session(r.lease.workerId(), r.lease.sessionId());
    if (holder != null) {
      holder.leased.remove(r);
    }
    r.moveTo("uncertain".equals(cmd.outcome()) ? RunState.QUARANTINED : RunState.COMPLETED);
    r.completionBytes = body.clone();
    r.outcome = cmd.outcome();
    r.completedBySession = sessionId;
    r.completedAt = now;
    log.event(
        "complete",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " run="
            + runId
            + "#"
            + cmd.attempt()
            + " outcome="
            + cmd.outcome()
            + (r.state == RunState.QUARANTINED ? " (quarantined)" : ""));
    return Reply.ok(wire.completeResponse(cmd.attempt(), false, runId));
  }

  /** See {@link ControlPlane#cancel}. */
  ControlPlane.CancelResult cancel(String runId) {
    Run r = runs.get(runId);
    if (r == null) {
      return ControlPlane.CancelResult.UNKNOWN;
    }
    switch (r.state) {
      case QUEUED -> {
        queue.remove(r.seq);
        r.moveTo(RunState.CANCELLED);
        log.event("cancel", "run=" + runId + " (was queued)");
        return ControlPlane.CancelResult.CANCELLED;
      }
      case LEASED -> {
        r.cancelRequested = true;
        log.event("cancel-requested", "run=" + runId + " session=" + r.lease.sessionId());
        return ControlPlane.CancelResult.CANCEL_REQUESTED;
      }
      default -> {
        return ControlPlane.CancelResult.ALREADY_FINISHED;
      }
    }
  }

  List<Views.RunView> views() {
    List<Views.RunView> out = new ArrayList<>(runs.size());
    for (Run r : runs.values()) {
      out.add(view(r));
    }
    return out;
  }

  Optional<Views.RunView> view(String runId) {
    Run r = runs.get(runId);
    return r == null ? Optional.empty() : Optional.of(view(r));
  }

  private static Views.RunView view(Run r) {
    Views.LeaseView lease =
        r.lease == null
            ? null
            : new Views.LeaseView(
                r.lease.workerId(), r.lease.sessionId(), r.lease.generation(), r.lease.attempt());
    return new Views.RunView(
        r.runId,
        r.state.name().toLowerCase(java.util.Locale.ROOT),
        r.executor,
        r.specDigest,
        r.timeoutMs,
        r.idempotencyKey,
        r.targetWorker,
        r.targetLabels,
        lease,
        r.state.terminal() || r.state == RunState.CANCELLED
            ? 0
            : r.state == RunState.LEASED ? r.lease.attempt() : r.nextAttempt(),
        r.cancelRequested,
        r.reclaims,
        r.outcome,
        r.completedBySession,
        r.completionBytes == null
            ? null
            : new String(r.completionBytes, java.nio.charset.StandardCharsets.UTF_8),
        r.submittedAt,
        r.completedAt);
  }
}
