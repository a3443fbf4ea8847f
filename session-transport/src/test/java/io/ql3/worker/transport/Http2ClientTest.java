package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2Client} against frames written by hand: the server's side is Netty's frame writer
 * into an {@link EmbeddedChannel}, with no TLS (the transport's TLS tests run the same client over
 * real TLS 1.3; this seam lets a test send what a conforming server never would, a pushed stream
 * against our SETTINGS).
 */
class Http2ClientTest {
  private final List<String> events = new ArrayList<>();
  private final Http2Client client = Http2Client.create(new RecordingEvents());
  private final EmbeddedChannel ch = new EmbeddedChannel(client);
  private final DefaultHttp2FrameWriter server = new DefaultHttp2FrameWriter();

  @AfterEach
  void close() {
    ch.finishAndReleaseAll();
    server.close();
  }

  @Test
  void anAnswerEndsItsExchangeAndTheServersSettingsAreReported() throws Exception {
    Exchange ex = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
    fromServer(
        (ctx) -> server.writeHeaders(ctx, ex.h2Stream, status("200"), 0, false, ctx.newPromise()));
    fromServer(
        (ctx) ->
            server.writeData(
                ctx,
                ex.h2Stream,
                Unpooled.copiedBuffer("{}", StandardCharsets.UTF_8),
                0,
                true,
                ctx.newPromise()));

    RawResponse r = answer(ex);
    assertThat(r.status()).isEqualTo(200);
    assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("{}");
    assertThat(events).containsExactly("settings");
  }

  @Test
  void aStreamTheServerOpensIsResetAndTheExchangeLivesOn() throws Exception {
    Exchange ex = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
    // Push is off in our SETTINGS, but until the server has acknowledged them it may still push.
    fromServer(
        (ctx) -> server.writePushPromise(ctx, ex.h2Stream, 2, status("200"), 0, ctx.newPromise()));
    fromServer((ctx) -> server.writeHeaders(ctx, 2, status("200"), 0, false, ctx.newPromise()));

    assertThat(resetsSent()).containsExactly("2:" + Http2Error.CANCEL.code());
    assertThat(ex.done()).isFalse();
    fromServer(
        (ctx) -> server.writeHeaders(ctx, ex.h2Stream, status("204"), 0, true, ctx.newPromise()));
    assertThat(answer(ex).status()).isEqualTo(204);
  }

  @Test
  void aStreamResetByTheServerFailsAsOutcomeUnknownAndIsNotResetBack() throws Exception {
    Exchange ex = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
    fromServer(
        (ctx) ->
            server.writeRstStream(
                ctx, ex.h2Stream, Http2Error.REFUSED_STREAM.code(), ctx.newPromise()));

    assertThat(ex.promise).isCompletedExceptionally();
    TransportFailure f = failure(ex);
    assertThat(f.reason()).isEqualTo(TransportFailure.Reason.RESET);
    assertThat(f.requestSent()).isTrue();
    assertThat(resetsSent()).isEmpty(); // a reset is never answered with a reset
  }

  @Test
  void anAnswerOverItsCapFailsAndResetsOnlyItsStream() throws Exception {
    Exchange big = send();
    Exchange next = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
    fromServer(
        (ctx) -> server.writeHeaders(ctx, big.h2Stream, status("200"), 0, false, ctx.newPromise()));
    fromServer(
        (ctx) ->
            server.writeData(
                ctx,
                big.h2Stream,
                Unpooled.wrappedBuffer(new byte[1025]),
                0,
                false,
                ctx.newPromise()));

    assertThat(failure(big).reason()).isEqualTo(TransportFailure.Reason.RESPONSE_TOO_LARGE);
    assertThat(resetsSent()).containsExactly(big.h2Stream + ":" + Http2Error.CANCEL.code());
    fromServer(
        (ctx) -> server.writeHeaders(ctx, next.h2Stream, status("204"), 0, true, ctx.newPromise()));
    assertThat(answer(next).status()).isEqualTo(204);
    assertThat(ch.isActive()).isTrue();
  }

  @Test
  void aGoAwayBelowAStreamFailsItsExchangeAndIsReported() throws Exception {
    Exchange ex = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
    fromServer(
        (ctx) ->
            server.writeGoAway(
                ctx,
                ex.h2Stream - 2,
                Http2Error.NO_ERROR.code(),
                Unpooled.EMPTY_BUFFER,
                ctx.newPromise()));

    assertThat(events).containsExactly("settings", "goaway");
    TransportFailure f = failure(ex);
    assertThat(f.reason()).isEqualTo(TransportFailure.Reason.RESET);
    assertThat(f.requestSent()).isTrue(); // outcome unknown: resent with the same bytes
    assertThat(resetsSent()).isEmpty(); // the server closed the stream, nothing to reset
  }

  @Test
  void aClosedConnectionLeavesItsExchangesToTheConnectionsCause() {
    Exchange ex = send();
    fromServer((ctx) -> server.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));

    // The socket closes under the handler, as when the peer closes: ch.close() would instead go
    // through Http2ConnectionHandler's graceful close, which waits for the streams in flight.
    ch.unsafe().close(ch.voidPromise());
    ch.runPendingTasks();

    // The connection fails every exchange in flight with the close's classified cause (a TLS
    // alert, an idle timeout...); a stream's own "closed before the answer" would mask it.
    assertThat(ch.isActive()).isFalse();
    assertThat(ex.done()).isFalse();
  }

  private Exchange send() {
    Exchange ex =
        new Exchange("/p", "{}".getBytes(StandardCharsets.UTF_8), 1024, 256, false, false, "t", 1);
    client.write(ex, new DefaultHttp2Headers().method("POST").path("/p").scheme("https"));
    client.flushRequests();
    return ex;
  }

  private static Http2Headers status(String code) {
    return new DefaultHttp2Headers().status(code);
  }

  private interface ServerWrite {
    void write(ChannelHandlerContext ctx);
  }

  /** Encodes one server frame with Netty's writer and feeds its bytes to the client. */
  private void fromServer(ServerWrite w) {
    EmbeddedChannel encoder =
        new EmbeddedChannel(new io.netty.channel.ChannelInboundHandlerAdapter());
    w.write(encoder.pipeline().firstContext());
    encoder.flushOutbound();
    ByteBuf frame;
    while ((frame = encoder.readOutbound()) != null) {
      ch.writeInbound(frame);
    }
    encoder.finishAndReleaseAll();
    ch.runPendingTasks();
  }

  /** The RST_STREAM frames the client wrote, as "stream:code", skipping its preface. */
  private List<String> resetsSent() throws Exception {
    List<String> resets = new ArrayList<>();
    ByteBuf out = Unpooled.buffer();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      out.writeBytes(b);
      b.release();
    }
    out.skipBytes(Http2CodecUtil.connectionPrefaceBuf().readableBytes());
    EmbeddedChannel scratch =
        new EmbeddedChannel(new io.netty.channel.ChannelInboundHandlerAdapter());
    try (DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader()) {
      reader.readFrame(
          scratch.pipeline().firstContext(),
          out,
          new Http2FrameAdapter() {
            @Override
            public void onRstStreamRead(ChannelHandlerContext ctx, int id, long code) {
              resets.add(id + ":" + code);
            }
          });
    } finally {
      out.release();
      scratch.finishAndReleaseAll();
    }
    return resets;
  }

  /** The channel is embedded: every frame is handled before the write that carried it returns. */
  private static RawResponse answer(Exchange ex) {
    assertThat(ex.promise).isDone();
    return ex.promise.join();
  }

  private static TransportFailure failure(Exchange ex) {
    assertThat(ex.promise).isDone();
    try {
      ex.promise.get();
      throw new AssertionError("the exchange succeeded");
    } catch (ExecutionException e) {
      return (TransportFailure) e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private final class RecordingEvents implements ConnectionEvents {
    @Override
    public void handshakeDone(Channel ch, String alpn) {}

    @Override
    public void connectFailed(Channel ch, Throwable cause) {}

    @Override
    public void failureSeen(Channel ch, Throwable cause) {
      events.add("failure " + cause);
    }

    @Override
    public void goAwayReceived() {
      events.add("goaway");
    }

    @Override
    public void settingsReceived() {
      events.add("settings");
    }
  }
}
