package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.runtime.session.SessionLease;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The {@link PullLoop}'s one pull: its request (kept byte for byte for resends) and its tries. */
final class PendingPull {
  final SessionLease lease;
  final PullRequest request;
  final long sentAt;

  /** Chosen for h2 (a parked wait): every try of it goes out only on h2. */
  final boolean longPoll;

  /** Some try's outcome was unknown: the server may have applied it (leased offers). */
  boolean mayHaveReachedServer;

  /** The reservation's journal write. */
  CompletableFuture<Long> reservation;

  /** The settlements queued ahead of the reservation whose slots it counted as free. */
  List<CompletionOutbox.Settling> behind = List.of();

  CompletableFuture<Answer<PullResponse>> future;

  PendingPull(SessionLease lease, PullRequest request, long sentAt, boolean longPoll) {
    this.lease = lease;
    this.request = request;
    this.sentAt = sentAt;
    this.longPoll = longPoll;
  }
}
