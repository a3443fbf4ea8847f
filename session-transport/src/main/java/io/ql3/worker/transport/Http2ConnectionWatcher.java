package io.ql3.worker.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * Connection-level h2 frames: reports GOAWAY (no new streams; finish what is in flight, then
 * reconnect) and the server's SETTINGS; releases every frame it reads.
 */
final class Http2ConnectionWatcher extends ChannelInboundHandlerAdapter {
  private final ConnectionEvents events;

  Http2ConnectionWatcher(ConnectionEvents events) {
    this.events = events;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof Http2GoAwayFrame) {
        events.goAwayReceived();
      } else if (msg instanceof Http2SettingsFrame) {
        events.settingsReceived();
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.fireExceptionCaught(cause);
  }
}
