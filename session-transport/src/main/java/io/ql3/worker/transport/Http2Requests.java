package io.ql3.worker.transport;

/**
 * Sends exchanges on an h2 connection: each one on a stream of its own ({@link Http2Client}), so a
 * parked pull delays nothing else. The streams written by one {@link #sendAll} share one flush (one
 * TLS write). Event-loop confined.
 */
final class Http2Requests {
  private final H2RequestHeaders h2Headers;

  Http2Requests(H2RequestHeaders h2Headers) {
    this.h2Headers = h2Headers;
  }

  /** Sends every waiting exchange on {@code h2}, each moved in flight, then flushes once. */
  void sendAll(Http2Client h2, Exchanges exchanges) {
    boolean written = false;
    try {
      while (exchanges.anyWaiting()) {
        Exchange ex = exchanges.nextToSend();
        if (!ex.done()) {
          h2.write(ex, h2Headers.of(ex.path, ex.bearer, ex.body.length));
          written = true;
        }
      }
    } finally {
      if (written) {
        h2.flushRequests(); // every stream written above: one flush, one TLS write
      }
    }
  }
}
