package io.ql3.worker.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Right after the TLS handler: sees TLS alerts before any codec wraps or swallows them, reports
 * them as the connection's failure, and passes them on.
 */
final class CauseRecorder extends ChannelInboundHandlerAdapter {
  private final ConnectionEvents events;

  CauseRecorder(ConnectionEvents events) {
    this.events = events;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    events.failureSeen(ctx.channel(), cause);
    ctx.fireExceptionCaught(cause);
  }
}
