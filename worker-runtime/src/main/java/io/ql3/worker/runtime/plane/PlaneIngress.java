package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.IngressClient;
import java.util.concurrent.CompletableFuture;

/** The two execution operations of the ingress client, plus what the plane needs to know of it. */
public interface PlaneIngress {
  CompletableFuture<Answer<PullResponse>> pull(
      SessionId session, PullRequest request, OfferPolicy policy);

  /**
   * A long poll: a pull that the transport sends only on an h2 connection; when the connection this
   * try would go out on speaks http/1.1 it fails {@link
   * io.ql3.worker.contract.AnswerKind#NOT_SENT_ON_HTTP1} (contract section 1).
   */
  default CompletableFuture<Answer<PullResponse>> longPoll(
      SessionId session, PullRequest request, OfferPolicy policy) {
    return pull(session, request, policy);
  }

  CompletableFuture<Answer<CompleteResponse>> complete(
      SessionId session, RunId run, CompleteRequest request);

  /** Aborts a parked pull (h2); its result becomes outcome-unknown. */
  void abortPulls();

  /** The protocol of the current or last connection, or empty before the first one. */
  java.util.Optional<Protocol> protocol();

  /** Adapts the transport's client, counting and timing every call. */
  static PlaneIngress of(IngressClient c, io.ql3.worker.runtime.metrics.TimedCalls timed) {
    return new PlaneIngress() {
      @Override
      public CompletableFuture<Answer<PullResponse>> pull(
          SessionId s, PullRequest r, OfferPolicy p) {
        return timed.time("pull", () -> c.pull(s, r, p));
      }

      @Override
      public CompletableFuture<Answer<PullResponse>> longPoll(
          SessionId s, PullRequest r, OfferPolicy p) {
        return timed.time("pull", () -> c.longPoll(s, r, p));
      }

      @Override
      public CompletableFuture<Answer<CompleteResponse>> complete(
          SessionId s, RunId run, CompleteRequest r) {
        return timed.time("complete", () -> c.complete(s, run, r));
      }

      @Override
      public void abortPulls() {
        c.abortPulls();
      }

      @Override
      public java.util.Optional<Protocol> protocol() {
        return Protocol.of(c.protocol());
      }
    };
  }
}
