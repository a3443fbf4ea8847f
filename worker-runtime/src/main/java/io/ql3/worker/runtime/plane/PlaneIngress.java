package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressResult;
import java.util.concurrent.CompletableFuture;

/** The two execution operations of the ingress client, plus what the plane needs to know of it. */
public interface PlaneIngress {
  CompletableFuture<IngressResult<PullResponse>> pull(SessionId session, PullRequest request, OfferPolicy policy);

  /**
   * A long poll: a pull that the transport sends only on an h2 connection; when the connection this
   * try would go out on speaks http/1.1 it fails {@code NOT_SENT} with
   * {@link io.ql3.worker.transport.TransportFailure.Reason#HTTP1_CONNECTION} (contract section 1).
   */
  default CompletableFuture<IngressResult<PullResponse>> longPoll(SessionId session, PullRequest request,
      OfferPolicy policy) {
    return pull(session, request, policy);
  }

  CompletableFuture<IngressResult<CompleteResponse>> complete(SessionId session, RunId run, CompleteRequest request);

  /** Aborts a parked pull (h2); its result becomes outcome-unknown. */
  void abortPulls();

  /** {@code h2}, {@code http/1.1}, or null before the first connection. */
  String protocol();

  /** Adapts the transport's client, counting and timing every call. */
  static PlaneIngress of(IngressClient c, io.ql3.worker.runtime.metrics.TimedCalls timed) {
    return new PlaneIngress() {
      @Override
      public CompletableFuture<IngressResult<PullResponse>> pull(SessionId s, PullRequest r, OfferPolicy p) {
        return timed.time("pull", () -> c.pull(s, r, p));
      }

      @Override
      public CompletableFuture<IngressResult<PullResponse>> longPoll(SessionId s, PullRequest r, OfferPolicy p) {
        return timed.time("pull", () -> c.longPoll(s, r, p));
      }

      @Override
      public CompletableFuture<IngressResult<CompleteResponse>> complete(SessionId s, RunId run, CompleteRequest r) {
        return timed.time("complete", () -> c.complete(s, run, r));
      }

      @Override
      public void abortPulls() {
        c.abortPulls();
      }

      @Override
      public String protocol() {
        return c.protocol();
      }
    };
  }
}
