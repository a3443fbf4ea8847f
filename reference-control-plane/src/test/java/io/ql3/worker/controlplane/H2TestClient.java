package io.ql3.worker.controlplane;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.controlplane.pki.PemFiles;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A frame-level Netty h2 test client: streams a request body in DATA frames without content-length.
 */
final class H2TestClient implements AutoCloseable {
  /** What came back on one stream. {@code resetCode} -1: no RST_STREAM. */
  record Answer(int status, byte[] body, long resetCode, long bytesSentBeforeAnswer) {}

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          1, new DefaultThreadFactory("h2-test-client"), NioIoHandler.newFactory());
  private final Channel parent;
  private final String token;

  H2TestClient(Path pki, String worker, int port) throws Exception {
    Path wd = pki.resolve("workers").resolve(worker);
    token = Files.readString(wd.resolve("token")).trim();
    SslContext ssl =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .keyManager(
                PemFiles.readPrivateKey(wd.resolve("client.key")),
                PemFiles.readCertificate(wd.resolve("client.crt")))
            .trustManager(PemFiles.readCertificate(pki.resolve("ca.crt")))
            .applicationProtocolConfig(
                new ApplicationProtocolConfig(
                    ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    "h2"))
            .build();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    parent =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(ssl.newHandler(ch.alloc(), "127.0.0.1", port));
                    ch.pipeline()
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void userEventTriggered(
                                  ChannelHandlerContext ctx, Object evt) {
                                if (evt instanceof SslHandshakeCompletionEvent e) {
                                  if (e.isSuccess()
                                      && "h2"
                                          .equals(
                                              ctx.pipeline()
                                                  .get(SslHandler.class)
                                                  .applicationProtocol())) {
                                    ctx.pipeline()
                                        .addLast(
                                            Http2FrameCodecBuilder.forClient().build(),
                                            new Http2MultiplexHandler(
                                                new ChannelInboundHandlerAdapter()));
                                    ctx.pipeline().remove(this);
                                    ready.complete(null);
                                  } else {
                                    ready.completeExceptionally(
                                        new IllegalStateException(
                                            "no h2 connection: " + e.cause()));
                                  }
                                }
                              }
                            });
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
    ready.get(20, TimeUnit.SECONDS);
  }

  /**
   * Sends headers (no content-length) and then {@code total} bytes of spaces in 1024-byte DATA
   * frames, one frame at a time as long as no answer arrived; ends the stream only if all were
   * sent.
   */
  Answer streamBody(String path, int total) throws Exception {
    CompletableFuture<Answer> done = new CompletableFuture<>();
    long[] sent = {0, -1};
    int[] status = {0};
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    Http2StreamChannel stream =
        new Http2StreamChannelBootstrap(parent)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    try {
                      if (msg instanceof Http2HeadersFrame h) {
                        status[0] = Integer.parseInt(h.headers().status().toString());
                        sent[1] = sent[1] < 0 ? sent[0] : sent[1];
                      } else if (msg instanceof Http2DataFrame d) {
                        byte[] b = new byte[d.content().readableBytes()];
                        d.content().readBytes(b);
                        body.writeBytes(b);
                      } else if (msg instanceof Http2ResetFrame r) {
                        done.complete(
                            new Answer(status[0], body.toByteArray(), r.errorCode(), sent[1]));
                      }
                    } finally {
                      ReferenceCountUtil.release(msg);
                    }
                  }

                  @Override
                  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    // The multiplexer delivers RST_STREAM to the stream's pipeline as a user event.
                    if (evt instanceof Http2ResetFrame r) {
                      done.complete(
                          new Answer(status[0], body.toByteArray(), r.errorCode(), sent[1]));
                    }
                    ReferenceCountUtil.release(evt);
                  }

                  @Override
                  public void channelInactive(ChannelHandlerContext ctx) {
                    done.complete(new Answer(status[0], body.toByteArray(), -1, sent[1]));
                  }
                })
            .open()
            .sync()
            .getNow();
    DefaultHttp2Headers headers = new DefaultHttp2Headers();
    headers.method("POST").path(path).scheme("https").authority("127.0.0.1");
    headers
        .set("authorization", "Bearer " + token)
        .set("content-type", "application/json")
        .set("accept", "application/json")
        .set("user-agent", "ql3-worker/0.0.0-test");
    stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, false)).sync();
    while (sent[0] < total && status[0] == 0 && stream.isActive()) {
      int n = (int) Math.min(1024, total - sent[0]);
      ByteBuf chunk = Unpooled.wrappedBuffer(" ".repeat(n).getBytes());
      boolean last = sent[0] + n == total;
      stream.writeAndFlush(new DefaultHttp2DataFrame(chunk, last)).await(5, TimeUnit.SECONDS);
      sent[0] += n;
      Thread.sleep(
          1); // let the answer overtake the remaining frames, as a real sender would be interrupted
    }
    return done.get(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    parent.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
