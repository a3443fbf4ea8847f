package io.ql3.worker.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * The h2 side of one connection: Netty's connection handler (frames, HPACK, flow control, SETTINGS,
 * PING and GOAWAY) with each exchange on a stream of its own, and no channel per stream. A stream's
 * exchange is a property of the stream; {@link Http2Answers} reads the frames into it.
 *
 * <p>Netty's child channel per stream ({@code Http2MultiplexHandler}) was a pipeline, a config, a
 * promise chain and a frame object per frame for each request: ~1.5 ms of CPU per run on the
 * interpreted edge agent, and ~50 classes (docs/perf/edge.md, "Ninth pass"). Event-loop confined.
 */
final class Http2Client extends Http2ConnectionHandler {
  static final String PROTOCOL = "h2";

  /** Server push is off; header lists over 16 KiB are refused (the answers are small). */
  private static final Http2Settings SETTINGS =
      Http2Settings.defaultSettings().pushEnabled(false).maxHeaderListSize(16384);

  private final Http2Connection.PropertyKey exchangeKey;
  private ChannelHandlerContext ctx;

  private Http2Client(
      Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
    super(decoder, encoder, settings);
    this.exchangeKey = connection().newKey();
  }

  /**
   * A handler whose answers go to their exchanges and whose connection events to {@code events}.
   */
  static Http2Client create(ConnectionEvents events) {
    return new Builder(events).build();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
  }

  /**
   * Opens a stream for {@code ex} and writes its request (headers, then the body ending the
   * stream), unflushed. A stream that cannot be opened (the server's stream limit, a GOAWAY) fails
   * the exchange unsent.
   */
  void write(Exchange ex, Http2Headers headers) {
    int id = connection().local().incrementAndGetNextStreamId();
    ChannelPromise opened = ctx.newPromise();
    encoder().writeHeaders(ctx, id, headers, 0, false, opened);
    Http2Stream stream = id > 0 ? connection().stream(id) : null;
    Throwable cause = opened.cause(); // set only once the write failed
    if (stream == null || cause != null) {
      ex.fail(FailureClassifier.classify(cause), "cannot open an h2 stream", cause);
      return;
    }
    stream.setProperty(exchangeKey, ex);
    ex.h2 = this;
    ex.h2Stream = id;
    ex.sent = true;
    encoder()
        .writeData(ctx, id, Unpooled.wrappedBuffer(ex.body), 0, true, ctx.newPromise())
        .addListener(
            w -> {
              // When the connection closed, it fails the exchange with the close's cause.
              if (!w.isSuccess() && isConnectionActive()) {
                ex.fail(FailureClassifier.classify(w.cause()), "write failed", w.cause());
              }
            });
  }

  /** Sends what {@link #write} left unflushed: one flush, one TLS write for all of it. */
  void flushRequests() {
    flush(ctx);
  }

  boolean isConnectionActive() {
    return ctx != null && ctx.channel().isActive();
  }

  /** The exchange on stream {@code id}, null for a stream we did not open. */
  Exchange exchange(int id) {
    Http2Stream stream = connection().stream(id);
    return stream == null ? null : stream.getProperty(exchangeKey);
  }

  Exchange exchange(Http2Stream stream) {
    return stream.getProperty(exchangeKey);
  }

  /** Resets stream {@code id} (CANCEL) while it is open; no-op once it ended or was reset. */
  void reset(int id) {
    Http2Stream stream = connection().stream(id);
    if (stream == null
        || stream.isResetSent()
        || stream.state() == Http2Stream.State.CLOSED
        || !isConnectionActive()) {
      return;
    }
    resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
    flush(ctx);
  }

  /** A stream error read from the server fails that stream's exchange (Netty resets the stream). */
  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException streamException) {
    Exchange ex = exchange(streamException.streamId());
    super.onStreamError(ctx, outbound, cause, streamException);
    if (ex != null) {
      ex.fail(FailureClassifier.classify(cause), "stream error", cause);
    }
  }

  /**
   * A connection error read from the server goes down the pipeline first, so it is what the
   * connection's close is classified by; Netty then sends GOAWAY and closes.
   */
  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    if (!outbound) {
      ctx.fireExceptionCaught(cause);
    }
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  private static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<Http2Client, Builder> {
    private final ConnectionEvents events;

    Builder(ConnectionEvents events) {
      this.events = events;
      server(false);
      initialSettings(SETTINGS);
    }

    @Override
    protected Http2Client build() {
      return super.build();
    }

    @Override
    protected Http2Client build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      Http2Client client = new Http2Client(decoder, encoder, settings);
      Http2Answers answers = new Http2Answers(client, events);
      frameListener(answers); // the builder gives it to the decoder
      client.connection().addListener(answers);
      return client;
    }
  }
}
