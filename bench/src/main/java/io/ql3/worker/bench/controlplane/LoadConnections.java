package io.ql3.worker.bench.controlplane;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.pki.DevPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The load client's side of the network: its event loops ({@code load-io}, on the transport that
 * {@code -Dql3.load.transport} selects, {@code auto} by default) and the simulated workers'
 * connections to the control plane on 127.0.0.1. Workers are {@code load-0000…}; missing ones are
 * added to the PKI directory with {@link DevPki} (the server reads token files per request, so a
 * running server accepts them at once).
 */
final class LoadConnections {
  final SocketTransport transport;
  final EventLoopGroup group;
  final Path pki;
  final int port;
  final AsciiString authority;

  LoadConnections(Path pki, int port, int threads) {
    this.pki = pki;
    this.port = port;
    this.authority = AsciiString.of("127.0.0.1:" + port);
    this.transport =
        SocketTransport.parse(System.getProperty("ql3.load.transport", "auto")).resolve();
    this.group =
        new MultiThreadIoEventLoopGroup(
            threads, new DefaultThreadFactory("load-io"), transport.ioHandlerFactory());
  }

  /** Workers {@code load-0000…} up to {@code workers}, each connected (TLS 1.3, h2), in order. */
  List<WorkerConnection> connectAll(int workers) throws Exception {
    DevPki dev = new DevPki(pki, Duration.ofDays(30));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      ids.add(String.format("load-%04d", i));
    }
    dev.create(ids);
    List<WorkerConnection> conns = new ArrayList<>();
    for (String id : ids) {
      WorkerConnection c = new WorkerConnection(this, id);
      c.connect().get(60, TimeUnit.SECONDS);
      conns.add(c);
    }
    return conns;
  }

  /** Stops the event loops (closing every connection) without a quiet period. */
  void shutdown() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
