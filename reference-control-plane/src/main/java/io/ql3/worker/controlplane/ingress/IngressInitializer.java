package io.ql3.worker.controlplane.ingress;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.ql3.worker.controlplane.pki.WorkerIdentity;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Per connection: TLS (client certificate required), then ALPN picks {@code h2} ({@link H2Ingress}:
 * the HTTP/2 codec, one exchange per stream) or {@code http/1.1} (server codec + {@link
 * Http1Ingress}). Both hand each request to an {@link IngressExchange}, so every rule is
 * implemented once.
 */
final class IngressInitializer extends ChannelInitializer<SocketChannel> {
  static final AttributeKey<ConnectionRegistry.Conn> CONN = AttributeKey.valueOf("ql3.conn");
  private static final long HANDSHAKE_TIMEOUT_MS = 10_000;

  private final SslContext ssl;
  private final IngressContext ctx;

  IngressInitializer(SslContext ssl, IngressContext ctx) {
    this.ssl = ssl;
    this.ctx = ctx;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    SslHandler tls = ssl.newHandler(ch.alloc());
    tls.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MS);
    ch.pipeline().addLast("tls", tls);
    ch.pipeline().addLast("alpn", new Negotiation());
  }

  private final class Negotiation extends ApplicationProtocolNegotiationHandler {
    Negotiation() {
      super(ApplicationProtocolNames.HTTP_1_1);
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext c, String protocol) {
      Channel ch = c.channel();
      String identity = identity(c.pipeline().get(SslHandler.class));
      ConnectionRegistry.Conn conn = ctx.connections().opened(identity, protocol, ch);
      ch.attr(CONN).set(conn);
      ch.closeFuture().addListener(f -> ctx.connections().closed(conn));
      ChannelPipeline p = c.pipeline();
      if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
        p.addLast("h2", H2Ingress.create(ctx, conn));
      } else {
        p.addLast("http1", new HttpServerCodec());
        p.addLast("ingress", new Http1Ingress(ctx, conn));
      }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext c, Throwable cause) {
      ctx.log().event("tls-failure", "remote=" + c.channel().remoteAddress() + " " + cause);
      c.close();
    }
  }

  private static String identity(SslHandler tls) {
    try {
      Certificate[] peer = tls.engine().getSession().getPeerCertificates();
      if (peer.length > 0 && peer[0] instanceof X509Certificate x) {
        return WorkerIdentity.of(x).orElse(null);
      }
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return null;
  }
}
