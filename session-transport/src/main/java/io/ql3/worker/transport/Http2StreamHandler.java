package io.ql3.worker.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * The answer side of one h2 stream (one exchange). Data frames are copied and released as they
 * arrive; reading a frame is what returns flow-control credit, so the window only opens for bytes
 * we actually took. Over the cap the stream is reset (the connection and other streams live on).
 */
final class Http2StreamHandler extends ChannelInboundHandlerAdapter {
  static final String PROTOCOL = "h2";
  private final Exchange ex;

  Http2StreamHandler(Exchange ex) {
    this.ex = ex;
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
    if (ex.done()) {
      return;
    }
    if (msg instanceof Http2HeadersFrame h) {
      if (!ex.hasStatus()) {
        HttpResponseStatus status;
        try {
          status = HttpResponseStatus.parseLine(h.headers().status());
        } catch (RuntimeException e) {
          ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "invalid :status", e);
          return;
        }
        if (status.codeClass() == io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL
            && !h.isEndStream()) {
          return;
        }
        CharSequence cl = h.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        long declared = -1;
        if (cl != null) {
          try {
            declared = Long.parseLong(cl.toString().trim());
          } catch (NumberFormatException e) {
            ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "invalid content-length", e);
            return;
          }
        }
        if (!ex.start(status.code(), h.headers().get(HttpHeaderNames.RETRY_AFTER), declared)) {
          return; // failed; fail() resets the stream
        }
      }
      if (h.isEndStream()) {
        ex.succeed(PROTOCOL);
      }
    } else if (msg instanceof Http2DataFrame d) {
      if (!ex.hasStatus()) {
        ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "DATA before HEADERS", null);
        return;
      }
      if (ex.append(d.content()) && d.isEndStream()) {
        ex.succeed(PROTOCOL);
      }
    } else if (msg instanceof Http2ResetFrame r) {
      ex.fail(
          TransportFailure.Reason.RESET,
          "stream reset by the server (error code " + r.errorCode() + ")",
          null);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (!ctx.channel().parent().isActive()) {
      super.channelInactive(
          ctx); // the connection closed: it fails the exchange with the classified cause
      return;
    }
    ex.fail(TransportFailure.Reason.RESET, "stream closed before the answer was complete", null);
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ex.fail(FailureClassifier.classify(cause), "stream error", cause);
    ctx.close();
  }
}
