package io.ql3.worker.transport;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the connection's sockets did, written on the event loop and readable from any thread:
 * sockets opened, the most open at once (the one-connection rule says 1), the last protocol.
 */
final class SocketCounts {
  private final AtomicInteger connectionsOpened = new AtomicInteger();
  private final AtomicInteger openSockets = new AtomicInteger();
  private final AtomicInteger maxOpenSockets = new AtomicInteger();
  private volatile String negotiatedProtocol;

  void opened() {
    connectionsOpened.incrementAndGet();
    maxOpenSockets.accumulateAndGet(openSockets.incrementAndGet(), Math::max);
  }

  void closed() {
    openSockets.decrementAndGet();
  }

  void negotiated(String protocol) {
    negotiatedProtocol = protocol;
  }

  /** Number of sockets opened so far (each one TLS handshake). */
  int connectionsOpened() {
    return connectionsOpened.get();
  }

  /** The most sockets ever open at once (the one-connection rule says 1). */
  int maxOpenSockets() {
    return maxOpenSockets.get();
  }

  /** {@code h2} or {@code http/1.1} of the current or last connection, null before the first. */
  String protocol() {
    return negotiatedProtocol;
  }
}
