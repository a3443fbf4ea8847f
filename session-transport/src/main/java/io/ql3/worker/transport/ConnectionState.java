package io.ql3.worker.transport;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** States of the one connection, with the table of allowed transitions. */
enum ConnectionState {
  /** No socket. */
  IDLE,
  /** No socket; waiting out the reconnect delay after a failure. */
  BACKOFF,
  /** Socket being connected and TLS handshake in progress. */
  CONNECTING,
  /** Handshake done, protocol chosen, exchanges flow. */
  READY,
  /** close() issued; the socket is not yet closed, so no new one may be opened. */
  CLOSING,
  /** The transport is shut down. Terminal. */
  CLOSED;

  private static final Map<ConnectionState, Set<ConnectionState>> ALLOWED =
      new EnumMap<>(ConnectionState.class);

  static {
    ALLOWED.put(IDLE, EnumSet.of(BACKOFF, CONNECTING, CLOSED));
    ALLOWED.put(BACKOFF, EnumSet.of(IDLE, CLOSED));
    ALLOWED.put(
        CONNECTING,
        EnumSet.of(READY, CLOSING, IDLE, CLOSED)); // IDLE: failed before a socket existed
    ALLOWED.put(READY, EnumSet.of(CLOSING, CLOSED));
    ALLOWED.put(CLOSING, EnumSet.of(IDLE, CLOSED));
    ALLOWED.put(CLOSED, EnumSet.noneOf(ConnectionState.class));
  }

  ConnectionState to(ConnectionState next) {
    if (!ALLOWED.get(this).contains(next)) {
      throw new IllegalStateException(
          "connection state " + this + " -> " + next + " is not allowed");
    }
    return next;
  }
}
