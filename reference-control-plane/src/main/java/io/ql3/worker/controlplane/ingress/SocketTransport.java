package io.ql3.worker.controlplane.ingress;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;

/**
 * Which socket implementation the server's event loops use. {@code epoll} (Linux, Netty's native
 * transport) costs less CPU per request than the JDK's selector; {@code auto} takes it when its
 * native library loads and falls back to {@code nio} otherwise, so the server runs everywhere.
 */
public enum SocketTransport {
  AUTO,
  EPOLL,
  NIO;

  public static SocketTransport parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "transport must be auto, epoll or nio, not '" + text + "'", e);
    }
  }

  /** AUTO resolved; EPOLL fails here, with the reason, when the native library cannot be loaded. */
  public SocketTransport resolve() {
    return switch (this) {
      case AUTO -> Epoll.isAvailable() ? EPOLL : NIO;
      case EPOLL -> {
        if (!Epoll.isAvailable()) {
          throw new IllegalStateException(
              "the epoll transport is not available here: " + Epoll.unavailabilityCause());
        }
        yield EPOLL;
      }
      case NIO -> NIO;
    };
  }

  /** For a resolved transport. */
  public IoHandlerFactory ioHandlerFactory() {
    return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  /** For a resolved transport. */
  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** For a resolved transport: client connections (the load benchmark's). */
  public Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
