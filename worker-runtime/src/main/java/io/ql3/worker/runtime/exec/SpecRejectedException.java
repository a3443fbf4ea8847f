package io.ql3.worker.runtime.exec;

/**
 * An executor cannot run this spec. The runtime completes the offer {@code failed}, permanent,
 * {@code offer_rejected} (contract section 5) with this message, and never executes it.
 */
public final class SpecRejectedException extends Exception {

  private static final long serialVersionUID = 1L;

  public SpecRejectedException(String message) {
    super(message);
  }

  public SpecRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
