package io.ql3.worker.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;

/**
 * The one place that builds the connection's channel pipeline. At connect: {@code [proxy →] tls →
 * tls-errors → alpn → errors}; once ALPN chose, the protocol's handlers go before {@code errors}:
 * h2 {@code h2}, http/1.1 {@code h1-codec → h1}. The handlers report to the {@link
 * ConnectionEvents}; nothing here keeps connection state.
 */
final class ConnectionPipeline {
  private final EventLoop loop;
  private final IngressEndpoint endpoint;
  private final TransportSettings settings;
  private final ConnectionEvents events;

  ConnectionPipeline(
      EventLoop loop,
      IngressEndpoint endpoint,
      TransportSettings settings,
      ConnectionEvents events) {
    this.loop = loop;
    this.endpoint = endpoint;
    this.settings = settings;
    this.events = events;
  }

  /**
   * Opens a socket (through the configured proxy, if any) whose TLS engine comes from {@code ssl}.
   */
  ChannelFuture connect(SSLContext ssl) {
    HttpProxy proxy = settings.proxy();
    Bootstrap b =
        new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (proxy != null) {
                      // CONNECT tunnel first; TLS (mTLS) then runs end to end through it.
                      HttpProxyHandler tunnel =
                          new HttpProxyHandler(new InetSocketAddress(proxy.host(), proxy.port()));
                      tunnel.setConnectTimeoutMillis(settings.connectTimeout().toMillis());
                      ch.pipeline().addLast("proxy", tunnel);
                    }
                    // The engine checks the certificate against the peer host (TlsContexts).
                    SslHandler tls =
                        new SslHandler(
                            TlsContexts.newEngine(ssl, endpoint.host(), endpoint.port()));
                    tls.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis());
                    ch.pipeline().addLast("tls", tls);
                    // The handshake promise fails before the close for every cause, the
                    // handshake timeout included (which raises no exception event).
                    tls.handshakeFuture()
                        .addListener(
                            h -> {
                              if (!h.isSuccess()) {
                                events.connectFailed(ch, h.cause());
                              }
                            });
                    ch.pipeline().addLast("tls-errors", new CauseRecorder(events));
                    // Holds back any application bytes decoded in the same read as the server's
                    // Finished until the protocol's handlers are in place, then replays them.
                    ch.pipeline().addLast("alpn", new ProtocolSelector(ch, events));
                    ch.pipeline().addLast("errors", new ErrorCatcher(events));
                  }
                });
    if (proxy == null) {
      return b.connect(endpoint.host(), endpoint.port());
    }
    // The proxy resolves the ingress name: the agent may not be able to.
    return b.resolver(NoopAddressResolverGroup.INSTANCE)
        .connect(InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port()));
  }

  /** The h2 handler ({@link Http2Client}: every stream of the connection); returns it. */
  Http2Client addHttp2(Channel ch) {
    Http2Client h2 = Http2Client.create(events);
    ch.pipeline().addBefore("errors", "h2", h2);
    return h2;
  }

  /** The http/1.1 handlers: the codec, then {@code h1}; returns the context {@code h1} sends on. */
  ChannelHandlerContext addHttp1(Channel ch, Http1ClientHandler h1) {
    ch.pipeline().addBefore("errors", "h1-codec", new HttpClientCodec(4096, 8192, 8192));
    ch.pipeline().addBefore("errors", "h1", h1);
    return ch.pipeline().context(h1);
  }
}
