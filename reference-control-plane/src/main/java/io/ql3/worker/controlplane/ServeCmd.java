package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ql3-control-plane serve}: turns its options into a {@link ControlPlaneServer.Config},
 * starts the server and keeps it running until a signal stops it ({@code ql3cp-shutdown} hook).
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Serve the ingress (TLS 1.3, mTLS) and the admin API.")
final class ServeCmd implements Callable<Integer> {
  @Option(names = "--pki", required = true, description = "PKI directory made by dev-pki.")
  Path pki;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Ingress bind address (default ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", required = true, description = "Ingress port (0: ephemeral).")
  int port;

  @Option(
      names = "--admin-port",
      required = true,
      description = "Admin API port on 127.0.0.1 (0: ephemeral).")
  int adminPort;

  @Option(
      names = "--alpn",
      defaultValue = "h2,http/1.1",
      description = "'h2,http/1.1' or 'http/1.1' (default ${DEFAULT-VALUE}).")
  String alpn;

  // Defaults come from Settings.defaults() (the one owner of the server's default timing).
  @Option(names = "--heartbeat-interval-ms", description = "H (default ${DEFAULT-VALUE}).")
  long heartbeatIntervalMs = Settings.defaults().heartbeatIntervalMs();

  @Option(names = "--lease-ttl-ms", description = "L (default ${DEFAULT-VALUE}).")
  long leaseTtlMs = Settings.defaults().leaseTtlMs();

  @Option(
      names = "--draining-lease-ttl-ms",
      description = "L while draining (default ${DEFAULT-VALUE}).")
  long drainingLeaseTtlMs = Settings.defaults().drainingLeaseTtlMs();

  @Option(
      names = "--early-tolerance-ms",
      description =
          "A heartbeat earlier than H minus this is a violation (default ${DEFAULT-VALUE}).")
  long earlyToleranceMs = Settings.defaults().earlyToleranceMs();

  @Option(
      names = "--io-threads",
      defaultValue = "1",
      description = "Event loop threads (default ${DEFAULT-VALUE}).")
  int ioThreads;

  @Option(
      names = "--transport",
      defaultValue = "auto",
      converter = TransportConverter.class,
      description =
          "Sockets: auto (epoll where its native library loads, else nio), epoll or nio "
              + "(default ${DEFAULT-VALUE}).")
  SocketTransport transport;

  @Option(names = "--verbose", description = "Also log every successful answer (one line each).")
  boolean verbose;

  @Option(
      names = "--generations-file",
      description =
          "Keep each worker's generation counter in this file, so a restart never hands out a generation "
              + "again (contract section 5); everything else stays in memory. Default: none (all in memory).")
  Path generationsFile;

  @Override
  public Integer call() throws Exception {
    Settings settings =
        new Settings(
            heartbeatIntervalMs,
            leaseTtlMs,
            drainingLeaseTtlMs,
            earlyToleranceMs,
            Settings.defaults().pullIdsKept());
    ControlPlaneServer server =
        ControlPlaneServer.start(
            new ControlPlaneServer.Config(
                pki,
                host,
                port,
                adminPort,
                Alpn.parse(alpn),
                settings,
                Clock.systemUTC(),
                ioThreads,
                EventLog.to(System.out),
                verbose,
                transport,
                generationsFile));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println(java.time.Instant.now() + " stopping (signal)");
                  server.close();
                  stopped.countDown();
                },
                "ql3cp-shutdown"));
    stopped.await();
    return 0;
  }
}
