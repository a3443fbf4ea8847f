package io.ql3.worker.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Reads the server's h2 frames into the exchanges of {@link Http2Client}'s streams, and reports the
 * connection-level ones (SETTINGS, GOAWAY) to the {@link ConnectionEvents}.
 *
 * <p>Rules: DATA is copied as it arrives and counted as processed, which is what returns its
 * flow-control credit, so the window only opens for bytes we took; over the cap the exchange fails
 * and its stream is reset (the connection and the other streams live on). A stream that ends or is
 * reset before its answer is complete fails its exchange (outcome unknown); when the whole
 * connection closes, the connection fails every exchange in flight with the close's cause instead.
 * A stream we did not open (server push, which our SETTINGS refuse) is reset.
 */
final class Http2Answers extends Http2FrameAdapter implements Http2Connection.Listener {
  private final Http2Client client;
  private final ConnectionEvents events;

  Http2Answers(Http2Client client, ConnectionEvents events) {
    this.client = client;
    this.events = events;
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx, int id, Http2Headers headers, int padding, boolean endStream) {
    Exchange ex = client.exchange(id);
    if (ex == null) {
      client.reset(id);
      return;
    }
    if (ex.done()) {
      return;
    }
    if (!ex.hasStatus()) {
      HttpResponseStatus status;
      try {
        status = HttpResponseStatus.parseLine(headers.status());
      } catch (RuntimeException e) {
        ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "invalid :status", e);
        return;
      }
      if (status.codeClass() == HttpStatusClass.INFORMATIONAL && !endStream) {
        return;
      }
      CharSequence cl = headers.get(HttpHeaderNames.CONTENT_LENGTH);
      long declared = -1;
      if (cl != null) {
        try {
          declared = Long.parseLong(cl.toString().trim());
        } catch (NumberFormatException e) {
          ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "invalid content-length", e);
          return;
        }
      }
      if (!ex.start(status.code(), headers.get(HttpHeaderNames.RETRY_AFTER), declared)) {
        return; // failed; fail() resets the stream
      }
    }
    if (endStream) {
      ex.succeed(Http2Client.PROTOCOL);
    }
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int id,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endStream) {
    onHeadersRead(ctx, id, headers, padding, endStream);
  }

  @Override
  public int onDataRead(
      ChannelHandlerContext ctx, int id, ByteBuf data, int padding, boolean endStream) {
    int processed = data.readableBytes() + padding;
    Exchange ex = client.exchange(id);
    if (ex == null || ex.done()) {
      return processed;
    }
    if (!ex.hasStatus()) {
      ex.fail(TransportFailure.Reason.MALFORMED_RESPONSE, "DATA before HEADERS", null);
      return processed;
    }
    if (ex.append(data) && endStream) {
      ex.succeed(Http2Client.PROTOCOL);
    }
    return processed;
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int id, long errorCode) {
    Exchange ex = client.exchange(id);
    if (ex != null) {
      ex.h2 = null; // never answer a reset with a reset (RFC 9113 §6.4)
      ex.fail(
          TransportFailure.Reason.RESET,
          "stream reset by the server (error code " + errorCode + ")",
          null);
    }
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
    events.settingsReceived();
  }

  @Override
  public void onGoAwayRead(
      ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    events.goAwayReceived();
  }

  @Override
  public void onStreamClosed(Http2Stream stream) {
    Exchange ex = client.exchange(stream);
    if (ex == null || ex.done() || !client.isConnectionActive()) {
      return; // answered, or the connection closed: it fails the exchange with the classified cause
    }
    ex.fail(TransportFailure.Reason.RESET, "stream closed before the answer was complete", null);
  }

  @Override
  public void onStreamAdded(Http2Stream stream) {}

  @Override
  public void onStreamActive(Http2Stream stream) {}

  @Override
  public void onStreamHalfClosed(Http2Stream stream) {}

  @Override
  public void onStreamRemoved(Http2Stream stream) {}

  @Override
  public void onGoAwaySent(int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {}
}
