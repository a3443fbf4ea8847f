package io.ql3.worker.controlplane;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.ql3.worker.controlplane.admin.AdminApi;
import io.ql3.worker.controlplane.admin.AdminServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.ConnectionRegistry;
import io.ql3.worker.controlplane.ingress.ContractWire;
import io.ql3.worker.controlplane.ingress.IngressServer;
import io.ql3.worker.controlplane.ingress.RequestStats;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.ingress.TlsContexts;
import io.ql3.worker.controlplane.ingress.TokenStore;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.FaultPlan;
import io.ql3.worker.controlplane.state.GenerationFile;
import io.ql3.worker.controlplane.state.Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The composition root: one boss thread ({@code ql3cp-boss}) accepting, {@code ioThreads} event
 * loop threads ({@code ql3cp-io-N}, default 1) serving the TLS ingress and the admin API, and a
 * lease sweep every second on the first event loop. All server state lives in one {@link
 * ControlPlane} (one lock).
 */
public final class ControlPlaneServer implements AutoCloseable {
  /**
   * How to run. Port 0: an ephemeral port (see {@link #ingressAddress()}). {@code generationsFile}:
   * where each worker's generation counter outlives a restart ({@link GenerationFile}), or null
   * (all in memory).
   */
  public record Config(
      Path pkiDir,
      String host,
      int port,
      int adminPort,
      Alpn alpn,
      Settings settings,
      Clock clock,
      int ioThreads,
      EventLog log,
      boolean verbose,
      SocketTransport transport,
      Path generationsFile) {
    /** Generations in memory. */
    public Config(
        Path pkiDir,
        String host,
        int port,
        int adminPort,
        Alpn alpn,
        Settings settings,
        Clock clock,
        int ioThreads,
        EventLog log,
        boolean verbose,
        SocketTransport transport) {
      this(
          pkiDir, host, port, adminPort, alpn, settings, clock, ioThreads, log, verbose, transport,
          null);
    }

    /** With {@link SocketTransport#AUTO}. */
    public Config(
        Path pkiDir,
        String host,
        int port,
        int adminPort,
        Alpn alpn,
        Settings settings,
        Clock clock,
        int ioThreads,
        EventLog log,
        boolean verbose) {
      this(
          pkiDir,
          host,
          port,
          adminPort,
          alpn,
          settings,
          clock,
          ioThreads,
          log,
          verbose,
          SocketTransport.AUTO);
    }
  }

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ControlPlane controlPlane;
  private final FaultPlan faults;
  private final Auditor auditor;
  private final ConnectionRegistry connections;
  private final RequestStats stats;
  private final IngressServer ingress;
  private final AdminServer admin;
  private final ScheduledFuture<?> sweeper;
  private final EventLog log;

  private ControlPlaneServer(Config config) throws IOException, InterruptedException {
    this.log = config.log();
    var ssl = TlsContexts.server(config.pkiDir(), config.alpn());
    ContractWire wire = new ContractWire();
    this.auditor = new Auditor(config.clock(), config.log());
    this.controlPlane =
        new ControlPlane(
            config.clock(),
            config.settings(),
            wire,
            auditor,
            config.log(),
            config.generationsFile() == null
                ? null
                : GenerationFile.open(config.generationsFile()));
    this.faults = new FaultPlan();
    this.connections =
        new ConnectionRegistry(
            config.clock(), auditor, config.log(), config.settings().heartbeatIntervalMs());
    this.stats = new RequestStats();
    SocketTransport transport = config.transport().resolve();
    this.boss =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("ql3cp-boss"), transport.ioHandlerFactory());
    this.workers =
        new MultiThreadIoEventLoopGroup(
            Math.max(1, config.ioThreads()),
            new DefaultThreadFactory("ql3cp-io"),
            transport.ioHandlerFactory());
    boolean ok = false;
    IngressServer in = null;
    AdminServer ad = null;
    try {
      in =
          IngressServer.bind(
              boss,
              workers,
              transport.serverChannel(),
              new InetSocketAddress(config.host(), config.port()),
              ssl,
              controlPlane,
              wire,
              new TokenStore(config.pkiDir()),
              faults,
              connections,
              stats,
              auditor,
              config.log(),
              config.verbose());
      ad =
          AdminServer.bind(
              boss,
              workers,
              transport.serverChannel(),
              config.adminPort(),
              new AdminApi(controlPlane, faults, connections, stats, auditor));
      ok = true;
    } finally {
      if (!ok) {
        if (in != null) {
          in.close();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      }
    }
    this.ingress = in;
    this.admin = ad;
    this.sweeper = workers.next().scheduleAtFixedRate(controlPlane::sweep, 1, 1, TimeUnit.SECONDS);
    log.event(
        "serving",
        "ingress=https://"
            + addr(ingress.address())
            + " alpn="
            + config.alpn().protocols()
            + " admin=http://"
            + addr(admin.address())
            + " pki="
            + config.pkiDir()
            + " transport="
            + transport.wireName());
  }

  private static String addr(InetSocketAddress a) {
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  public static ControlPlaneServer start(Config config) throws IOException, InterruptedException {
    return new ControlPlaneServer(config);
  }

  public InetSocketAddress ingressAddress() {
    return ingress.address();
  }

  public InetSocketAddress adminAddress() {
    return admin.address();
  }

  public ControlPlane controlPlane() {
    return controlPlane;
  }

  public Auditor auditor() {
    return auditor;
  }

  public FaultPlan faults() {
    return faults;
  }

  public ConnectionRegistry connections() {
    return connections;
  }

  public RequestStats stats() {
    return stats;
  }

  /** Stops accepting, closes every connection and the event loops; waits for them. */
  @Override
  public void close() {
    sweeper.cancel(false);
    ingress.close();
    admin.close();
    connections.closeAll();
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    log.event("stopped", "");
  }
}
