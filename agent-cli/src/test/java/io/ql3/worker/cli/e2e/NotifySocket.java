package io.ql3.worker.cli.e2e;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What systemd listens on for sd_notify(3): a real {@code AF_UNIX} datagram socket bound to a path.
 * Each datagram received is kept in order of arrival, with the number of lines its test saw before
 * it.
 */
final class NotifySocket implements AutoCloseable {
  final Path path;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
  private final Channel channel;
  private final List<String> datagrams = new ArrayList<>();

  NotifySocket(Path path) throws InterruptedException {
    this.path = path;
    channel =
        new Bootstrap()
            .group(group)
            .channel(EpollDomainDatagramChannel.class)
            .handler(
                new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket p) {
                    String text = p.content().toString(StandardCharsets.UTF_8);
                    synchronized (datagrams) {
                      datagrams.add(text);
                    }
                  }
                })
            .bind(new DomainSocketAddress(path.toFile()))
            .sync()
            .channel();
  }

  /** Every datagram so far, oldest first. */
  List<String> datagrams() {
    synchronized (datagrams) {
      return List.copyOf(datagrams);
    }
  }

  /** Index of the first datagram with a line exactly {@code line}; -1 if none yet. */
  int indexOf(String line) {
    List<String> all = datagrams();
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).lines().anyMatch(line::equals)) {
        return i;
      }
    }
    return -1;
  }

  long count(String line) {
    return datagrams().stream().filter(d -> d.lines().anyMatch(line::equals)).count();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
