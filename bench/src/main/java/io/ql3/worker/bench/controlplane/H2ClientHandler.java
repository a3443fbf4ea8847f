package io.ql3.worker.bench.controlplane;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP/2 codec of one load connection, with the streams waiting for their answer. Requests are
 * HEADERS + DATA written straight through the codec on a new stream (no child channel per stream);
 * answers complete futures from the frame listener. A request written outside a read is flushed at
 * once, one written from an answer's callback at the end of that read.
 */
final class H2ClientHandler extends Http2ConnectionHandler {
  /** The client side of the codec, with the handler as its own frame listener. */
  static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<H2ClientHandler, Builder> {
    Builder() {
      server(false);
      validateHeaders(true);
    }

    @Override
    protected H2ClientHandler build() {
      return super.build();
    }

    @Override
    protected H2ClientHandler build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      H2ClientHandler c = new H2ClientHandler(decoder, encoder, settings);
      frameListener(c.listener);
      return c;
    }
  }

  private static final class Pending {
    final CompletableFuture<Answer> answer;
    int status;
    byte[] body = new byte[0];

    Pending(CompletableFuture<Answer> answer) {
      this.answer = answer;
    }
  }

  private final IntObjectMap<Pending> pending = new IntObjectHashMap<>();
  private ChannelHandlerContext ctx;
  private boolean reading;

  private final Http2EventAdapter listener =
      new Http2EventAdapter() {
        @Override
        public void onHeadersRead(
            ChannelHandlerContext c,
            int streamId,
            Http2Headers headers,
            int padding,
            boolean endOfStream) {
          Pending p = pending.get(streamId);
          if (p == null) {
            return;
          }
          if (headers.status() != null) {
            p.status = Integer.parseInt(headers.status().toString());
          }
          if (endOfStream) {
            done(streamId, p);
          }
        }

        @Override
        public void onHeadersRead(
            ChannelHandlerContext c,
            int streamId,
            Http2Headers headers,
            int dependency,
            short weight,
            boolean exclusive,
            int padding,
            boolean endOfStream) {
          onHeadersRead(c, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(
            ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean endOfStream) {
          int n = data.readableBytes();
          Pending p = pending.get(streamId);
          if (p != null) {
            byte[] b = Arrays.copyOf(p.body, p.body.length + n);
            data.getBytes(data.readerIndex(), b, p.body.length, n);
            p.body = b;
            if (endOfStream) {
              done(streamId, p);
            }
          }
          return n + padding;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext c, int streamId, long errorCode) {
          Pending p = pending.remove(streamId);
          if (p != null) {
            p.answer.completeExceptionally(new IllegalStateException("stream reset " + errorCode));
          }
        }
      };

  private H2ClientHandler(
      Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
    super(decoder, encoder, settings);
  }

  private void done(int streamId, Pending p) {
    pending.remove(streamId);
    p.answer.complete(new Answer(p.status, p.body));
  }

  @Override
  public void handlerAdded(ChannelHandlerContext c) throws Exception {
    ctx = c;
    super.handlerAdded(c);
  }

  @Override
  public void channelRead(ChannelHandlerContext c, Object msg) throws Exception {
    reading = true;
    super.channelRead(c, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext c) throws Exception {
    reading = false;
    super.channelReadComplete(c); // flushes what the answers' callbacks wrote
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) throws Exception {
    for (Pending p : pending.values()) {
      p.answer.completeExceptionally(new IllegalStateException("connection closed"));
    }
    pending.clear();
    super.channelInactive(c);
  }

  /**
   * On the event loop: HEADERS + DATA on a new stream; flushed now, or at the end of the current
   * read.
   */
  void request(Http2Headers headers, byte[] body, CompletableFuture<Answer> answer) {
    int streamId = connection().local().incrementAndGetNextStreamId();
    pending.put(streamId, new Pending(answer));
    encoder().writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
    encoder()
        .writeData(ctx, streamId, Unpooled.wrappedBuffer(body), 0, true, ctx.newPromise())
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                Pending p = pending.remove(streamId);
                if (p != null) {
                  p.answer.completeExceptionally(f.cause());
                }
              }
            });
    if (!reading) {
      flush(ctx);
    }
  }
}
