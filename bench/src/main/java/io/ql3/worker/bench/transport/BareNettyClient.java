package io.ql3.worker.bench.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The floor: the least a Netty client must do for the same exchange over the same kind of TLS 1.3
 * mTLS connection (same ALPN, headers and body), without credential checks, caps, deadlines,
 * classification or parsing.
 */
final class BareNettyClient implements AutoCloseable {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          1, new DefaultThreadFactory("bare-client", true), NioIoHandler.newFactory());
  private final Channel channel;
  private final boolean h2;
  private volatile CompletableFuture<byte[]> pending;

  BareNettyClient(BenchPki pki, int port, boolean offerH2) throws Exception {
    SslContext ssl =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .keyManager(pki.clientKeys.getPrivate(), pki.client)
            .trustManager(pki.ca)
            .endpointIdentificationAlgorithm("HTTPS")
            .applicationProtocolConfig(
                new ApplicationProtocolConfig(
                    ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    offerH2
                        ? new String[] {
                          ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1
                        }
                        : new String[] {ApplicationProtocolNames.HTTP_1_1}))
            .build();
    CompletableFuture<String> negotiated = new CompletableFuture<>();
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(ssl.newHandler(ch.alloc(), "127.0.0.1", port));
                    // Configure by ALPN before any application byte is passed on (replayed after).
                    ch.pipeline()
                        .addLast(
                            new ApplicationProtocolNegotiationHandler(
                                ApplicationProtocolNames.HTTP_1_1) {
                              @Override
                              protected void configurePipeline(
                                  ChannelHandlerContext ctx, String protocol) {
                                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                  ctx.pipeline()
                                      .addLast(
                                          Http2FrameCodecBuilder.forClient().build(),
                                          new Http2MultiplexHandler(
                                              new ChannelInboundHandlerAdapter()));
                                } else {
                                  ctx.pipeline()
                                      .addLast(
                                          new HttpClientCodec(),
                                          new HttpObjectAggregator(1 << 16),
                                          new SimpleChannelInboundHandler<FullHttpResponse>() {
                                            @Override
                                            protected void channelRead0(
                                                ChannelHandlerContext c, FullHttpResponse msg) {
                                              pending.complete(ByteBufUtil.getBytes(msg.content()));
                                            }
                                          });
                                }
                                negotiated.complete(protocol);
                              }
                            });
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
    h2 = ApplicationProtocolNames.HTTP_2.equals(negotiated.get(10, TimeUnit.SECONDS));
  }

  byte[] roundTrip(String path, byte[] body) throws Exception {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    pending = f;
    if (h2) {
      Http2StreamChannel stream =
          new Http2StreamChannelBootstrap(channel)
              .handler(
                  new ChannelInboundHandlerAdapter() {
                    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                      try {
                        if (msg instanceof Http2DataFrame d) {
                          out.write(
                              ByteBufUtil.getBytes(d.content()), 0, d.content().readableBytes());
                          if (d.isEndStream()) {
                            f.complete(out.toByteArray());
                          }
                        } else if (msg instanceof Http2HeadersFrame h && h.isEndStream()) {
                          f.complete(out.toByteArray());
                        }
                      } finally {
                        ReferenceCountUtil.release(msg);
                      }
                    }
                  })
              .open()
              .sync()
              .getNow();
      DefaultHttp2Headers h = new DefaultHttp2Headers();
      h.method("POST").scheme("https").authority("127.0.0.1").path(path);
      h.set("content-type", "application/json")
          .set("accept", "application/json")
          .set("user-agent", "ql3-worker/bench")
          .set("authorization", "Bearer " + BenchPki.TOKEN)
          .setInt("content-length", body.length);
      stream.write(new DefaultHttp2HeadersFrame(h, false));
      stream.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body), true));
    } else {
      DefaultFullHttpRequest req =
          new DefaultFullHttpRequest(
              HttpVersion.HTTP_1_1, HttpMethod.POST, path, Unpooled.wrappedBuffer(body));
      req.headers()
          .set(HttpHeaderNames.HOST, "127.0.0.1")
          .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
          .set(HttpHeaderNames.ACCEPT, "application/json")
          .set(HttpHeaderNames.USER_AGENT, "ql3-worker/bench")
          .set(HttpHeaderNames.AUTHORIZATION, "Bearer " + BenchPki.TOKEN)
          .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      channel.writeAndFlush(req);
    }
    return f.get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
