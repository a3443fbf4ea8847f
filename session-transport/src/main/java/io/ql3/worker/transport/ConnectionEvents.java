package io.ql3.worker.transport;

import io.netty.channel.Channel;

/**
 * What the connection's pipeline ({@link ConnectionPipeline} and its handlers) reports to the
 * connection state machine ({@link IngressConnection}). Every call comes on the event loop.
 */
interface ConnectionEvents {
  /**
   * The TLS handshake of {@code ch} succeeded and the server chose {@code alpn} (null: none, so
   * http/1.1); called by the {@link ProtocolSelector} before buffered bytes are replayed.
   */
  void handshakeDone(Channel ch, String alpn);

  /**
   * The connect or the TLS handshake of {@code ch} failed (null: no socket was made). The first
   * report of an attempt wins; later reports of the same attempt are ignored.
   */
  void connectFailed(Channel ch, Throwable cause);

  /** An exception went through the pipeline of {@code ch}: the first one is why it closes. */
  void failureSeen(Channel ch, Throwable cause);

  /** h2 GOAWAY: no new streams; finish what is in flight, then reconnect. */
  void goAwayReceived();

  /** h2 SETTINGS from the server (each one; only the first of a connection means anything). */
  void settingsReceived();
}
