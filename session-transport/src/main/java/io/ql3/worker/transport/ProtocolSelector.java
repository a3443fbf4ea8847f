package io.ql3.worker.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;

/**
 * Chooses the pipeline by ALPN (none: http/1.1); a failed handshake is a connect failure. Holds
 * back any application bytes decoded in the same read as the server's Finished until the protocol's
 * handlers are in place, then replays them (Netty's {@link ApplicationProtocolNegotiationHandler}).
 */
final class ProtocolSelector extends ApplicationProtocolNegotiationHandler {
  private final Channel ch;
  private final ConnectionEvents events;

  ProtocolSelector(Channel ch, ConnectionEvents events) {
    super(ApplicationProtocolNames.HTTP_1_1);
    this.ch = ch;
    this.events = events;
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String fallback) {
    // Netty's SslHandler knows the chosen protocol only for engines made by its own SslContext.
    events.handshakeDone(ch, TlsContexts.negotiated(ctx.pipeline().get(SslHandler.class).engine()));
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    events.connectFailed(ch, cause);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.fireExceptionCaught(cause); // the ErrorCatcher records and closes
  }
}
