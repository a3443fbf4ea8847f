package io.ql3.worker.controlplane.ingress;

import io.netty.util.concurrent.EventExecutor;

/** How an {@link IngressExchange} answers: one HTTP/1.1 connection or one h2 stream. */
interface Responder {
  /** The connection's event loop: every call on the exchange happens there. */
  EventExecutor executor();

  /** False once the connection (h1) or the stream (h2) is gone. */
  boolean isActive();

  /**
   * Writes the answer. {@code last}: nothing more is read for this request: h1 sends {@code
   * connection: close} and closes after the write; h2 resets the stream with NO_ERROR after the
   * write if the client is still sending (RFC 9113 section 8.1).
   */
  void send(int status, byte[] body, int retryAfterSeconds, boolean last);

  /** Closes the whole connection now (the drop-after-apply fault). */
  void dropConnection();
}
