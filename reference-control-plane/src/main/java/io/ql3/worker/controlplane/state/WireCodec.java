package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import java.util.List;

/**
 * Canonical response bodies, built with the session-contract module's wire records. The state
 * machine decides every value; the codec only serializes (one owner per fact).
 */
public interface WireCodec {
  /** {@code replacedSessionId} null: no previous session. */
  byte[] registerResponse(
      long generation,
      long heartbeatIntervalMs,
      long leaseTtlMs,
      Long replacedGeneration,
      String replacedSessionId,
      String replacedStatus);

  byte[] heartbeatResponse(
      List<String> cancelRuns,
      long generation,
      long heartbeatIntervalMs,
      long leaseTtlMs,
      SessionStatus status,
      long version,
      boolean workAvailable);

  byte[] transitionResponse(long generation, long leaseTtlMs, SessionStatus status, long version);

  byte[] pullResponse(long generation, long nextPullAfterMs, List<OfferData> offers, String pullId);

  /** Canonical size in bytes of one offer inside a pull response. */
  int offerSize(OfferData offer);

  byte[] completeResponse(long attempt, boolean duplicate, String runId);

  byte[] errorBody(ErrorCode code, String message);

  /**
   * Checks an offer against the contract's offer rules (executor name, idempotency key, runId,
   * timeout, attempt); IllegalArgumentException with the contract's reason when it breaks one.
   */
  void checkOffer(OfferData offer);

  /** True when {@code workerId} matches the contract's workerId pattern. */
  boolean validWorkerId(String workerId);

  /** Canonical form of a JSON value (a run spec); IllegalArgumentException when it has none. */
  byte[] canonicalize(byte[] json);

  /** {@code sha256:} + hex of SHA-256 over canonical bytes. */
  String digest(byte[] canonical);
}
