package io.ql3.worker.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Last handler of the connection pipeline: reports why the connection failed and closes it;
 * releases anything that reaches it.
 */
final class ErrorCatcher extends ChannelInboundHandlerAdapter {
  private final ConnectionEvents events;

  ErrorCatcher(ConnectionEvents events) {
    this.events = events;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    events.failureSeen(ctx.channel(), cause);
    ctx.close();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ReferenceCountUtil.release(msg); // nothing reaches here in a healthy pipeline
  }
}
