package io.ql3.worker.transport;

import java.util.OptionalLong;

/**
 * An exchange that produced no complete, in-cap HTTP answer. {@link #requestSent()} tells whether
 * any byte of the request may have reached the network: if not, the server certainly did not act.
 */
public final class TransportFailure extends Exception {
  /** What went wrong. */
  public enum Reason {
    /** TCP connect refused or unreachable. */
    CONNECT_FAILED,
    CONNECT_TIMEOUT,
    HANDSHAKE_TIMEOUT,
    /** The server offered no TLS 1.3 (for example a TLS 1.2-only server). */
    TLS_PROTOCOL_VERSION,
    /** The server chain does not verify to the configured trust bundle. */
    SERVER_UNTRUSTED,
    /** The server certificate (or its chain) is outside its validity period. */
    SERVER_CERTIFICATE_EXPIRED,
    /** The server certificate does not name the configured host or IP. */
    HOSTNAME_MISMATCH,
    /** The server rejected our client certificate (TLS alert). */
    CLIENT_CERTIFICATE_REJECTED,
    /** Any other TLS failure. */
    TLS_FAILURE,
    /** The connection closed or the stream was reset before the answer was complete. */
    RESET,
    /** No complete answer within the exchange deadline. */
    TIMEOUT,
    /** The response body is larger than the operation's cap; reading stopped at cap+1 bytes. */
    RESPONSE_TOO_LARGE,
    /** Bytes that are not a valid HTTP answer. */
    MALFORMED_RESPONSE,
    /** Aborted by the client (a parked pull, for a rotation or shutdown). */
    ABORTED,
    /** The transport is closed. */
    CLOSED,
    /**
     * A long poll ({@link IngressClient#longPoll}) whose connection speaks http/1.1: not sent,
     * because a parked request would block the one http/1.1 connection (contract section 1).
     */
    HTTP1_CONNECTION
  }

  private final Reason reason;
  private final boolean requestSent;
  private final int httpStatus;
  private final OptionalLong retryAfterSeconds;

  TransportFailure(Reason reason, boolean requestSent, String message, Throwable cause) {
    this(reason, requestSent, -1, OptionalLong.empty(), message, cause);
  }

  TransportFailure(
      Reason reason,
      boolean requestSent,
      int httpStatus,
      OptionalLong retryAfterSeconds,
      String message,
      Throwable cause) {
    super(
        reason
            + (requestSent ? " (request sent)" : " (request not sent)")
            + (httpStatus >= 0 ? " (HTTP " + httpStatus + ")" : "")
            + (message == null ? "" : ": " + message),
        cause);
    this.reason = reason;
    this.requestSent = requestSent;
    this.httpStatus = httpStatus;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /**
   * The status of the answer whose body went over its cap ({@link Reason#RESPONSE_TOO_LARGE}), or
   * -1.
   */
  public int httpStatus() {
    return httpStatus;
  }

  /**
   * That answer's {@code retry-after} in delta seconds, when it had a well-formed one: its status
   * row still decides (contract section 6, Clarifications), and a 429/503 row honours it.
   */
  public OptionalLong retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public Reason reason() {
    return reason;
  }

  public boolean requestSent() {
    return requestSent;
  }

  TransportFailure withSent(boolean sent) {
    return sent == requestSent
        ? this
        : new TransportFailure(reason, sent, httpStatus, retryAfterSeconds, null, this);
  }
}
