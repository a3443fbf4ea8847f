package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.OfferRejection;
import io.ql3.worker.runtime.exec.Executor;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.SpecRejectedException;
import java.util.Optional;

/**
 * Why an offer is never started, as the failure its recorded result reports: a one-offer rule or
 * its executor refused it ({@code permanent}, {@code offer_rejected}), its executor failed to
 * prepare it ({@code transient}, {@code executor_error}), or its session ended while the answer was
 * on its way ({@code transient}, {@code not_started}). Messages fit the contract's bound.
 */
final class OfferRefusals {
  /** The offer arrived after its session ended: the server may offer it again at once. */
  static final Failure SESSION_ENDED =
      new Failure(
          FailureCategory.TRANSIENT,
          "not_started",
          "the offer arrived after its session ended (fenced, expired or drifted); never started");

  private OfferRefusals() {}

  /** Why this offer must not run (a one-offer rule, or its executor refuses the spec), if so. */
  static Optional<Failure> of(Offer offer, ExecutorRegistry executors) {
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

  /** An executor bug while preparing: this offer fails, never started. */
  static Failure executorError(String executor, RuntimeException e) {
    return new Failure(
        FailureCategory.TRANSIENT,
        "executor_error",
        fit("executor " + executor + " failed to prepare the run: " + e));
  }

  private static Failure offerRejected(String message) {
    return new Failure(
        FailureCategory.PERMANENT,
        OfferRejection.FAILURE_CODE,
        fit(message == null ? "offer rejected" : message));
  }

  private static String fit(String m) {
    return m.codePointCount(0, m.length()) > Failure.MAX_MESSAGE_CHARS
        ? m.substring(0, m.offsetByCodePoints(0, Failure.MAX_MESSAGE_CHARS))
        : m;
  }
}
