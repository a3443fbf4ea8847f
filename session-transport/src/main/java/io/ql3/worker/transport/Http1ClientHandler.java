package io.ql3.worker.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * http/1.1: one exchange at a time on the keep-alive connection. Body bytes are counted as they
 * arrive; over the cap, or on anything unexpected, the connection is closed (an http/1.1 stream
 * cannot be resynchronised otherwise).
 */
final class Http1ClientHandler extends ChannelInboundHandlerAdapter {
  static final String PROTOCOL = "http/1.1";
  private final RequestHeaders headers;
  private Exchange current;
  private boolean keepAlive;
  // Between an interim (1xx) response and the empty content the decoder ends it with.
  private boolean inInterimResponse;

  Http1ClientHandler(RequestHeaders headers) {
    this.headers = headers;
  }

  boolean busy() {
    return current != null && !current.done();
  }

  void send(ChannelHandlerContext ctx, Exchange ex) {
    current = ex;
    FullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, ex.path, Unpooled.wrappedBuffer(ex.body));
    req.headers()
        .set(HttpHeaderNames.HOST, headers.authority())
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.USER_AGENT, headers.userAgent())
        .set(HttpHeaderNames.AUTHORIZATION, "Bearer " + ex.bearer)
        .set(HttpHeaderNames.CONTENT_LENGTH, ex.body.length);
    ex.sent = true;
    ctx.writeAndFlush(req)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ex.fail(TransportFailure.Reason.RESET, "write failed", f.cause());
                ctx.close();
              }
            });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      read(ctx, msg);
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void read(ChannelHandlerContext ctx, Object msg) {
    Exchange ex = current;
    if (ex == null || ex.done()) {
      ctx.close(); // an answer nobody asked for, or the rest of one we gave up on
      return;
    }
    if (msg instanceof HttpObject o && o.decoderResult().isFailure()) {
      ex.fail(
          TransportFailure.Reason.MALFORMED_RESPONSE,
          "not a valid HTTP/1.1 response",
          o.decoderResult().cause());
      ctx.close();
      return;
    }
    if (msg instanceof HttpResponse r) {
      if (r.status().code() == 101) {
        ex.fail(
            TransportFailure.Reason.MALFORMED_RESPONSE,
            "101 Switching Protocols, never asked",
            null);
        ctx.close();
        return;
      }
      if (r.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL) {
        // An interim response (100 Continue, 103 Early Hints): HTTP lets a server send any number
        // before the final one; each is skipped whole.
        inInterimResponse = true;
        return;
      }
      keepAlive = HttpUtil.isKeepAlive(r);
      long declared = HttpUtil.getContentLength(r, -1L);
      if (!ex.start(r.status().code(), r.headers().get(HttpHeaderNames.RETRY_AFTER), declared)) {
        ctx.close();
        return;
      }
    }
    if (msg instanceof HttpContent c) {
      if (inInterimResponse) {
        inInterimResponse = !(msg instanceof LastHttpContent);
        return;
      }
      if (!ex.hasStatus()) {
        ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "content before the status line", null);
        ctx.close();
        return;
      }
      if (!ex.append(c.content())) {
        ctx.close();
        return;
      }
      if (msg instanceof LastHttpContent) {
        current = null;
        ex.succeed(PROTOCOL);
        if (!keepAlive) {
          ctx.close();
        }
      }
    }
  }

  // channelInactive is not handled here: the connection fails in-flight exchanges on close, with
  // the classified cause (a TLS alert is not a plain reset).
}
