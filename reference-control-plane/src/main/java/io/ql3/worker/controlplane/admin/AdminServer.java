package io.ql3.worker.controlplane.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The admin API over plain HTTP/1.1, bound to 127.0.0.1 only. */
public final class AdminServer {
  private static final int MAX_BODY = 1 << 20;

  private final Channel channel;

  private AdminServer(Channel channel) {
    this.channel = channel;
  }

  public static AdminServer bind(
      EventLoopGroup boss,
      EventLoopGroup workers,
      Class<? extends ServerChannel> channelType,
      int port,
      AdminApi api)
      throws InterruptedException {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    Channel ch =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(channelType)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel c) {
                    c.pipeline()
                        .addLast(
                            new HttpServerCodec(),
                            new HttpObjectAggregator(MAX_BODY),
                            new Handler(api));
                  }
                })
            .bind(address)
            .sync()
            .channel();
    return new AdminServer(ch);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  public void close() {
    channel.close().syncUninterruptibly();
  }

  private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final AdminApi api;

    Handler(AdminApi api) {
      this.api = api;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      AdminApi.Answer a =
          req.decoderResult().isFailure()
              ? new AdminApi.Answer(
                  400,
                  "{\"error\":\"malformed request\"}"
                      .getBytes(java.nio.charset.StandardCharsets.UTF_8))
              : api.handle(req.method().name(), req.uri(), ByteBufUtil.getBytes(req.content()));
      FullHttpResponse res =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(a.status()),
              Unpooled.wrappedBuffer(a.json()));
      res.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
      res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, a.json().length);
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      if (!keepAlive) {
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      var f = ctx.writeAndFlush(res);
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
