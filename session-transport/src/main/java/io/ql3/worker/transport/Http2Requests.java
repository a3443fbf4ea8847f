package io.ql3.worker.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;

/**
 * Sends exchanges on an h2 connection: each one on a stream of its own (answered by an {@link
 * Http2StreamHandler}), so a parked pull delays nothing else. The streams written by one {@link
 * #sendAll} share one flush (one TLS write); a stream whose open completes later flushes itself.
 * Event-loop confined.
 */
final class Http2Requests {
  private final H2RequestHeaders h2Headers;

  /** True while {@link #sendAll} opens streams: a stream written then leaves the flush to it. */
  private boolean openingInPump;

  /** h2 streams written by {@link #sendAll} and not flushed yet. */
  private boolean unflushed;

  Http2Requests(H2RequestHeaders h2Headers) {
    this.h2Headers = h2Headers;
  }

  /** Sends every waiting exchange on {@code channel}, each moved in flight, then flushes once. */
  void sendAll(Channel channel, Exchanges exchanges) {
    openingInPump = true;
    try {
      while (exchanges.anyWaiting()) {
        openStream(channel, exchanges.nextToSend());
      }
    } finally {
      openingInPump = false;
      if (unflushed) {
        unflushed = false;
        channel.flush(); // every stream written above: one flush, one TLS write
      }
    }
  }

  private void openStream(Channel parent, Exchange ex) {
    new Http2StreamChannelBootstrap(parent)
        .handler(new Http2StreamHandler(ex))
        .open()
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ex.fail(TransportFailure.Reason.RESET, "cannot open an h2 stream", f.cause());
                return;
              }
              Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
              ex.stream = stream;
              if (ex.done()) {
                stream.close();
                return;
              }
              Http2Headers h = h2Headers.of(ex.path, ex.bearer, ex.body.length);
              ex.sent = true;
              stream.write(new DefaultHttp2HeadersFrame(h, false));
              stream
                  .write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(ex.body), true))
                  .addListener(
                      w -> {
                        if (!w.isSuccess()) {
                          ex.fail(FailureClassifier.classify(w.cause()), "write failed", w.cause());
                        }
                      });
              // Flushed by sendAll() once every waiting request is written; a stream opened later
              // (its open completed asynchronously) flushes itself.
              if (openingInPump) {
                unflushed = true;
              } else {
                stream.flush();
              }
            });
  }
}
