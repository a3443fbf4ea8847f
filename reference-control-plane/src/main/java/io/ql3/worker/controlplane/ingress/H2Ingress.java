package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;

/**
 * An h2 ingress connection. Frames go straight from the HTTP/2 codec to one {@link IngressExchange}
 * per stream (no child channel, no HTTP/1 object conversion: those were a large part of the
 * per-request cost). Answers written while a read is being processed are flushed once at the end of
 * that read, so several answers share one TLS record and one write.
 */
final class H2Ingress extends Http2ConnectionHandler implements Http2FrameListener {
  private static final int MAX_CONCURRENT_STREAMS = 256;

  private final IngressContext ictx;
  private final ConnectionRegistry.Conn conn;
  private final IntObjectMap<IngressExchange> exchanges = new IntObjectHashMap<>();
  private ChannelHandlerContext channel;

  /** Inside channelRead..channelReadComplete: the flush at read complete sends what was written. */
  private boolean reading;

  private H2Ingress(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings settings,
      IngressContext ictx,
      ConnectionRegistry.Conn conn) {
    super(decoder, encoder, settings);
    this.ictx = ictx;
    this.conn = conn;
    connection()
        .addListener(
            new Http2ConnectionAdapter() {
              @Override
              public void onStreamClosed(Http2Stream stream) {
                IngressExchange e = exchanges.remove(stream.id());
                if (e != null) {
                  e.inactive();
                }
              }
            });
  }

  static H2Ingress create(IngressContext ctx, ConnectionRegistry.Conn conn) {
    return new Builder(ctx, conn).build();
  }

  private static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<H2Ingress, Builder> {
    private final IngressContext ctx;
    private final ConnectionRegistry.Conn conn;

    Builder(IngressContext ctx, ConnectionRegistry.Conn conn) {
      this.ctx = ctx;
      this.conn = conn;
      // Every stream carries one small answer and agents send no priorities: a uniform distributor
      // saves
      // the weighted priority-tree bookkeeping the default one does for every stream opened and
      // closed.
      Http2Connection connection = new DefaultHttp2Connection(true);
      connection
          .remote()
          .flowController(
              new DefaultHttp2RemoteFlowController(
                  connection, new UniformStreamByteDistributor(connection)));
      connection(connection);
      validateHeaders(true);
      initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS));
    }

    @Override
    protected H2Ingress build() {
      return super.build();
    }

    @Override
    protected H2Ingress build(
        Http2ConnectionDecoder decoder,
        Http2ConnectionEncoder encoder,
        Http2Settings initialSettings) {
      H2Ingress handler = new H2Ingress(decoder, encoder, initialSettings, ctx, conn);
      frameListener(handler);
      return handler;
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    channel = ctx;
    super.handlerAdded(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    reading = true;
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    reading = false;
    super.channelReadComplete(ctx); // flushes
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    try {
      super.channelInactive(ctx);
    } finally {
      if (!exchanges.isEmpty()) {
        List<IngressExchange> left = new ArrayList<>(exchanges.values());
        exchanges.clear();
        left.forEach(IngressExchange::inactive);
      }
    }
  }

  // ------------------------------------------------------------------ frames

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endOfStream) {
    IngressExchange e = exchanges.get(streamId);
    if (e != null) {
      // Trailers: only their end-of-stream matters.
      if (endOfStream) {
        guarded(streamId, e, null);
      }
      return;
    }
    e = new IngressExchange(ictx, conn, new StreamOut(streamId));
    exchanges.put(streamId, e);
    CharSequence method = headers.method();
    CharSequence path = headers.path();
    List<CharSequence> types = headers.getAll(HttpHeaderNames.CONTENT_TYPE);
    List<String> contentTypes = new ArrayList<>(types.size());
    for (CharSequence t : types) {
      contentTypes.add(t.toString());
    }
    long declared = -1;
    CharSequence length = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    if (length != null) {
      try {
        declared = Long.parseLong(length.toString());
      } catch (NumberFormatException x) {
        declared = -1; // the codec resets such a stream; nothing is dispatched on it
      }
    }
    RequestHead head =
        new RequestHead(
            method == null || path == null,
            str(method),
            str(path),
            str(headers.get(HttpHeaderNames.AUTHORIZATION)),
            contentTypes,
            str(headers.get(HttpHeaderNames.ACCEPT)),
            str(headers.get(HttpHeaderNames.USER_AGENT)),
            declared,
            true);
    IngressExchange started = e;
    guarded(streamId, e, () -> started.begin(head));
    if (endOfStream && exchanges.get(streamId) == e) {
      guarded(streamId, e, null);
    }
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endOfStream) {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  @Override
  public int onDataRead(
      ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    int processed = data.readableBytes() + padding;
    IngressExchange e = exchanges.get(streamId);
    if (e != null) {
      guarded(streamId, e, () -> e.content(data));
      if (endOfStream && exchanges.get(streamId) == e) {
        guarded(streamId, e, null);
      }
    }
    return processed; // the body is copied (or dropped) at once: give the flow-control window back
  }

  /**
   * Runs {@code step} (null: end of the request) on the event loop; a bug resets the stream, not
   * the connection.
   */
  private void guarded(int streamId, IngressExchange e, Runnable step) {
    try {
      if (step == null) {
        e.end();
      } else {
        step.run();
      }
    } catch (RuntimeException x) {
      ictx.log().event("error", "conn=" + conn.id + " stream=" + streamId + " " + x);
      exchanges.remove(streamId);
      e.inactive();
      resetStream(channel, streamId, Http2Error.INTERNAL_ERROR.code(), channel.newPromise());
      flushUnlessReading();
    }
  }

  private static String str(CharSequence s) {
    return s == null ? null : s.toString();
  }

  private void flushUnlessReading() {
    if (!reading) {
      flush(channel);
    }
  }

  /** Answers on one stream. */
  private final class StreamOut implements Responder {
    private final int streamId;

    StreamOut(int streamId) {
      this.streamId = streamId;
    }

    @Override
    public EventExecutor executor() {
      return channel.executor();
    }

    @Override
    public boolean isActive() {
      if (!channel.channel().isActive()) {
        return false;
      }
      Http2Stream s = connection().stream(streamId);
      return s != null
          && (s.state() == Http2Stream.State.OPEN
              || s.state() == Http2Stream.State.HALF_CLOSED_REMOTE);
    }

    @Override
    public void send(int status, byte[] body, int retryAfterSeconds, boolean last) {
      Http2Headers h =
          new DefaultHttp2Headers(false, 4).status(HttpResponseStatus.valueOf(status).codeAsText());
      if (body.length > 0) {
        // an injected proxy page is HTML; every contract body is JSON
        h.set(
            HttpHeaderNames.CONTENT_TYPE,
            body[0] == (byte) '<' ? HttpHeaderValues.TEXT_HTML : HttpHeaderValues.APPLICATION_JSON);
      }
      h.set(HttpHeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(body.length)));
      if (retryAfterSeconds >= 0) {
        h.set(HttpHeaderNames.RETRY_AFTER, AsciiString.of(Integer.toString(retryAfterSeconds)));
      }
      Http2ConnectionEncoder enc = encoder();
      ChannelFuture done;
      if (body.length == 0) {
        done = enc.writeHeaders(channel, streamId, h, 0, true, channel.newPromise());
      } else {
        enc.writeHeaders(channel, streamId, h, 0, false, channel.newPromise());
        done =
            enc.writeData(
                channel, streamId, Unpooled.wrappedBuffer(body), 0, true, channel.newPromise());
      }
      if (last) {
        // Answered before the request ended: RST_STREAM NO_ERROR asks the client to stop sending
        // without
        // failing the response it already has (RFC 9113 section 8.1). Only once the answer is
        // written:
        // DATA waits in h2 flow control, a reset would overtake and drop it.
        done.addListener(
            f -> {
              Http2Stream s = connection().stream(streamId);
              if (s != null && channel.channel().isActive()) {
                resetStream(channel, streamId, Http2Error.NO_ERROR.code(), channel.newPromise());
                flushUnlessReading();
              }
            });
      }
      flushUnlessReading();
    }

    @Override
    public void dropConnection() {
      channel.close();
    }
  }

  // ------------------------------------------------------------------ frames without a request
  // meaning

  @Override
  public void onPriorityRead(
      ChannelHandlerContext ctx,
      int streamId,
      int streamDependency,
      short weight,
      boolean exclusive) {}

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    // The stream is closed by the codec: onStreamClosed ends its exchange.
  }

  @Override
  public void onSettingsAckRead(ChannelHandlerContext ctx) {}

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {}

  @Override
  public void onPingRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPushPromiseRead(
      ChannelHandlerContext ctx,
      int streamId,
      int promisedStreamId,
      Http2Headers headers,
      int padding) {}

  @Override
  public void onGoAwayRead(
      ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onWindowUpdateRead(
      ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {}

  @Override
  public void onUnknownFrame(
      ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {}
}
