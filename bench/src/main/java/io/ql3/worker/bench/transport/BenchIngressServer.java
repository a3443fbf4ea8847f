package io.ql3.worker.bench.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** TLS 1.3 mTLS server on 127.0.0.1 answering every POST with the heartbeat response vector. */
final class BenchIngressServer implements AutoCloseable {
  static final byte[] HEARTBEAT_RESPONSE =
      ("{\"cancelRuns\":[],\"generation\":7,\"heartbeatIntervalMs\":10000,"
              + "\"leaseTtlMs\":30000,\"schema\":\"qinglong/worker-session-heartbeat@v1\",\"status\":\"active\","
              + "\"version\":2,\"workAvailable\":true}")
          .getBytes(StandardCharsets.UTF_8);

  private final EventLoopGroup group;
  private final Channel channel;

  BenchIngressServer(BenchPki pki, boolean h2) throws Exception {
    SslContext ssl =
        SslContextBuilder.forServer(pki.serverKeys.getPrivate(), pki.server)
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .trustManager(pki.ca)
            .clientAuth(ClientAuth.REQUIRE)
            .applicationProtocolConfig(
                new ApplicationProtocolConfig(
                    ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    h2
                        ? new String[] {
                          ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1
                        }
                        : new String[] {ApplicationProtocolNames.HTTP_1_1}))
            .build();
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("bench-server", true), NioIoHandler.newFactory());
    channel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                    ch.pipeline()
                        .addLast(
                            new ApplicationProtocolNegotiationHandler(
                                ApplicationProtocolNames.HTTP_1_1) {
                              @Override
                              protected void configurePipeline(
                                  ChannelHandlerContext ctx, String protocol) {
                                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                  ctx.pipeline()
                                      .addLast(Http2FrameCodecBuilder.forServer().build());
                                  ctx.pipeline()
                                      .addLast(
                                          new Http2MultiplexHandler(
                                              new ChannelInitializer<Http2StreamChannel>() {
                                                @Override
                                                protected void initChannel(Http2StreamChannel s) {
                                                  s.pipeline()
                                                      .addLast(
                                                          new Http2StreamFrameToHttpObjectCodec(
                                                              true),
                                                          new HttpObjectAggregator(1 << 16),
                                                          new Answer());
                                                }
                                              }));
                                } else {
                                  ctx.pipeline()
                                      .addLast(
                                          new HttpServerCodec(),
                                          new HttpObjectAggregator(1 << 16),
                                          new Answer());
                                }
                              }
                            });
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      FullHttpResponse res =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.OK,
              Unpooled.wrappedBuffer(HEARTBEAT_RESPONSE));
      res.headers()
          .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
          .setInt(HttpHeaderNames.CONTENT_LENGTH, HEARTBEAT_RESPONSE.length);
      ctx.writeAndFlush(res);
    }
  }
}
