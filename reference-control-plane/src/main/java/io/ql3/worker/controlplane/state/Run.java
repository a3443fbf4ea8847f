package io.ql3.worker.controlplane.state;

import java.util.Map;

/** A submitted run. Mutable; guarded by the {@link ControlPlane} lock. */
final class Run {
  final String runId;
  final long seq;
  final String executor;
  final byte[] spec;
  final String specDigest;
  final long timeoutMs;
  final String idempotencyKey;
  final String targetWorker;
  final Map<String, String> targetLabels;
  final long submittedAt;
  final long notBefore;

  RunState state = RunState.QUEUED;

  /**
   * The latest offered attempt (null: never offered); completable until the run is offered again.
   */
  Lease lease;

  boolean cancelRequested;
  byte[] completionBytes;
  String outcome;
  String completedBySession;
  long completedAt;
  int reclaims;

  Run(
      String runId,
      long seq,
      String executor,
      byte[] spec,
      String specDigest,
      long timeoutMs,
      String idempotencyKey,
      String targetWorker,
      Map<String, String> targetLabels,
      long submittedAt,
      long notBefore) {
    this.runId = runId;
    this.seq = seq;
    this.executor = executor;
    this.spec = spec;
    this.specDigest = specDigest;
    this.timeoutMs = timeoutMs;
    this.idempotencyKey = idempotencyKey;
    this.targetWorker = targetWorker;
    this.targetLabels = targetLabels;
    this.submittedAt = submittedAt;
    this.notBefore = notBefore;
  }

  void moveTo(RunState next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(
          "run " + runId + ": " + state + " -> " + next + " is not allowed");
    }
    state = next;
  }

  long nextAttempt() {
    return lease == null ? 1 : lease.attempt() + 1;
  }

  OfferData offer(long attempt) {
    return new OfferData(attempt, executor, idempotencyKey, runId, spec, specDigest, timeoutMs);
  }
}
