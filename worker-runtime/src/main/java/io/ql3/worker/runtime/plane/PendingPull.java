package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.runtime.session.SessionLease;
import java.util.concurrent.CompletableFuture;

/**
 * The one pull of the {@link PullLoop}, from its reservation to its close: the bytes sent (every
 * try resends them), its session, and what its tries told. Confined to the cadence thread, except
 * {@link #future}, completed by the transport.
 */
final class PendingPull {
  final SessionLease lease;
  final PullRequest request;
  final long sentAt;

  /** Chosen for h2 (a parked wait): every try of it goes out only on h2. */
  final boolean longPoll;

  /** {@link NextPullHint#wakes()} when it was reserved. */
  final long wakesAtReserve;

  /** Some try's outcome was unknown: the server may have applied it (leased offers). */
  boolean mayHaveReachedServer;

  CompletableFuture<Answer<PullResponse>> future;

  PendingPull(
      SessionLease lease, PullRequest request, long sentAt, boolean longPoll, long wakesAtReserve) {
    this.lease = lease;
    this.request = request;
    this.sentAt = sentAt;
    this.longPoll = longPoll;
    this.wakesAtReserve = wakesAtReserve;
  }
}
