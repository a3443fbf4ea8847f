package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.ql3.worker.controlplane.state.ViolationKind;

/**
 * An HTTP/1.1 ingress connection: requests strictly one after the other (pipelining is a
 * violation), each one an {@link IngressExchange}.
 */
final class Http1Ingress extends SimpleChannelInboundHandler<HttpObject> {
  private final IngressContext ctx;
  private final ConnectionRegistry.Conn conn;
  private ChannelHandlerContext channel;
  private IngressExchange current;

  /**
   * The current request is still open: not answered, or answered while its body is still arriving.
   */
  private boolean inRequest;

  /** An answer was written while this read's bytes were still being decoded. */
  private boolean answeredInThisRead;

  Http1Ingress(IngressContext ctx, ConnectionRegistry.Conn conn) {
    super(false);
    this.ctx = ctx;
    this.conn = conn;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext c) {
    channel = c;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext c, HttpObject msg) {
    try {
      if (msg instanceof HttpRequest req) {
        if (!begin(c, req)) {
          return;
        }
      }
      if (msg instanceof HttpContent content && inRequest) {
        current.content(content.content());
      }
      if (msg instanceof LastHttpContent && inRequest) {
        current.end();
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private boolean begin(ChannelHandlerContext c, HttpRequest req) {
    if (inRequest) {
      // HTTP/1.1 pipelining: the contract sends strictly one request at a time.
      ctx.auditor()
          .record(
              ViolationKind.OVERLAPPING_SESSION_REQUESTS,
              conn.workerId,
              null,
              "a second HTTP/1.1 request before the previous one was answered (pipelining)");
      c.close();
      return false;
    }
    if (answeredInThisRead) {
      // Bytes of this request arrived together with the previous one, before its answer was sent.
      ctx.auditor()
          .record(
              ViolationKind.OVERLAPPING_SESSION_REQUESTS,
              conn.workerId,
              null,
              "HTTP/1.1 request sent before the previous answer was received (pipelining)");
    }
    inRequest = true;
    current = new IngressExchange(ctx, conn, new Out());
    HttpHeaders h = req.headers();
    current.begin(
        new RequestHead(
            req.decoderResult().isFailure(),
            req.method().name(),
            req.uri(),
            h.get(HttpHeaderNames.AUTHORIZATION),
            h.getAll(HttpHeaderNames.CONTENT_TYPE),
            h.get(HttpHeaderNames.ACCEPT),
            h.get(HttpHeaderNames.USER_AGENT),
            HttpUtil.getContentLength(req, -1L),
            HttpUtil.isKeepAlive(req)));
    return true;
  }

  /** Answers on this connection. */
  private final class Out implements Responder {
    @Override
    public EventExecutor executor() {
      return channel.executor();
    }

    @Override
    public boolean isActive() {
      return channel.channel().isActive();
    }

    @Override
    public void send(int status, byte[] body, int retryAfterSeconds, boolean last) {
      answeredInThisRead = true;
      FullHttpResponse res =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(status),
              Unpooled.wrappedBuffer(body));
      HttpHeaders h = res.headers();
      if (body.length > 0) {
        // an injected proxy page is HTML; every contract body is JSON
        h.set(
            HttpHeaderNames.CONTENT_TYPE,
            body[0] == (byte) '<' ? HttpHeaderValues.TEXT_HTML : HttpHeaderValues.APPLICATION_JSON);
      }
      h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      if (retryAfterSeconds >= 0) {
        h.setInt(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
      }
      if (last) {
        h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        channel.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
      } else {
        channel.writeAndFlush(res);
        inRequest = false;
      }
    }

    @Override
    public void dropConnection() {
      channel.close();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext c) throws Exception {
    answeredInThisRead = false;
    super.channelReadComplete(c);
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) throws Exception {
    if (current != null) {
      current.inactive();
    }
    super.channelInactive(c);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    ctx.log().event("error", "conn=" + conn.id + " " + cause);
    c.close();
  }
}
