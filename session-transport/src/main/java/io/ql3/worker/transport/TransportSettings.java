package io.ql3.worker.transport;

import java.time.Duration;

/**
 * Deadlines and reconnect bounds of the one connection.
 *
 * @param connectTimeout TCP connect deadline
 * @param handshakeTimeout TLS handshake deadline
 * @param responseTimeout deadline of one exchange from submission to the last response byte (a pull
 *     adds its {@code waitMs})
 * @param backoffMin first reconnect delay after a failed connect or handshake
 * @param backoffMax bound of the exponential reconnect delay
 * @param userAgentVersion the {@code <version>} of {@code user-agent: ql3-worker/<version>}
 */
public record TransportSettings(
    Duration connectTimeout,
    Duration handshakeTimeout,
    Duration responseTimeout,
    Duration backoffMin,
    Duration backoffMax,
    String userAgentVersion,
    HttpProxy proxy) {

  /** Direct to the ingress (no proxy). */
  public TransportSettings(
      Duration connectTimeout,
      Duration handshakeTimeout,
      Duration responseTimeout,
      Duration backoffMin,
      Duration backoffMax,
      String userAgentVersion) {
    this(
        connectTimeout,
        handshakeTimeout,
        responseTimeout,
        backoffMin,
        backoffMax,
        userAgentVersion,
        null);
  }

  /** Through {@code proxy} (HTTP CONNECT), or direct when null. */
  public TransportSettings withProxy(HttpProxy p) {
    return new TransportSettings(
        connectTimeout,
        handshakeTimeout,
        responseTimeout,
        backoffMin,
        backoffMax,
        userAgentVersion,
        p);
  }

  public static TransportSettings defaults(String userAgentVersion) {
    return new TransportSettings(
        Duration.ofSeconds(10),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMillis(500),
        Duration.ofSeconds(60),
        userAgentVersion);
  }

  public TransportSettings withResponseTimeout(Duration d) {
    return new TransportSettings(
        connectTimeout, handshakeTimeout, d, backoffMin, backoffMax, userAgentVersion, proxy);
  }

  public TransportSettings withBackoff(Duration min, Duration max) {
    return new TransportSettings(
        connectTimeout, handshakeTimeout, responseTimeout, min, max, userAgentVersion, proxy);
  }

  public TransportSettings withConnectTimeout(Duration d) {
    return new TransportSettings(
        d, handshakeTimeout, responseTimeout, backoffMin, backoffMax, userAgentVersion, proxy);
  }

  public TransportSettings withHandshakeTimeout(Duration d) {
    return new TransportSettings(
        connectTimeout, d, responseTimeout, backoffMin, backoffMax, userAgentVersion, proxy);
  }
}
