package io.ql3.worker.controlplane.ingress;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.FaultPlan;
import java.net.InetSocketAddress;

/** Binds the TLS ingress on the given event loops (owned by the caller). */
public final class IngressServer {
  private final Channel channel;

  private IngressServer(Channel channel) {
    this.channel = channel;
  }

  public static IngressServer bind(
      EventLoopGroup boss,
      EventLoopGroup workers,
      Class<? extends ServerChannel> channelType,
      InetSocketAddress address,
      SslContext ssl,
      ControlPlane controlPlane,
      ContractWire wire,
      TokenStore tokens,
      FaultPlan faults,
      ConnectionRegistry connections,
      RequestStats stats,
      Auditor auditor,
      EventLog log,
      boolean verbose)
      throws InterruptedException {
    IngressContext ctx =
        new IngressContext(
            controlPlane, wire, tokens, faults, connections, stats, auditor, log, verbose);
    Channel ch =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(channelType)
            .option(ChannelOption.SO_BACKLOG, 2048)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new IngressInitializer(ssl, ctx))
            .bind(address)
            .sync()
            .channel();
    return new IngressServer(ch);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  public void close() {
    channel.close().syncUninterruptibly();
  }
}
