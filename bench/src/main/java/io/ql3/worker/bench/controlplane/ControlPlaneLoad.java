package io.ql3.worker.bench.controlplane;

import io.ql3.worker.controlplane.pki.DevPki;

/**
 * A Netty h2 load client for the reference control plane (a benchmark, not a test). Every simulated
 * worker has its own certificate, token and one TLS 1.3 h2 connection, and follows the contract
 * (one session request at a time per worker, versions in order). It is kept cheap because it shares
 * the machine with the server: requests are written straight through the HTTP/2 codec (no child
 * channel per stream), and the heartbeat body is pre-encoded with only its version spliced in
 * (checked against the contract's serializer at register). Every counted heartbeat is a 200 whose
 * body the contract's strict parser accepts, carrying the next version.
 *
 * <pre>
 * heartbeat mode: W workers register, then each sends its next heartbeat as soon as the previous answer
 *                 arrived, for S seconds after a warm-up; prints answers/s and the latency distribution.
 * longpoll mode:  W workers register and each parks one pull (waitMs 60000); prints how many the server
 *                 holds (admin /connections), then submits W runs and measures until every pull got its offer.
 * </pre>
 *
 * Usage: {@code ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS]
 * [WARMUP] [THREADS] [SERVER_PID] [WINDOWS]}: WINDOWS measurement windows of SECONDS each, back to
 * back after one warm-up. Workers are {@code load-0000…}; missing ones are added to PKI_DIR with
 * {@link DevPki} (the server reads token files per request, so a running server accepts them at
 * once).
 *
 * <p>This class is the entry point only. The parts: {@link LoadOptions} (the command line), {@link
 * LoadConnections} (event loops, workers' PKI and connections), {@link WorkerConnection} (one
 * worker: TLS, h2, register, pre-encoded heartbeats), {@link H2ClientHandler} (the HTTP/2 codec and
 * its pending streams), {@link HeartbeatLoad} and {@link LongPollLoad} (the two modes), {@link
 * HeartbeatWindow} (one measured window and its printed block), {@link LatencyHistogram}, {@link
 * ProcStats} (/proc readings) and {@link SpeedProbe}.
 */
public final class ControlPlaneLoad {
  private ControlPlaneLoad() {}

  public static void main(String[] args) throws Exception {
    if (!LoadOptions.complete(args)) {
      System.err.println(LoadOptions.USAGE);
      System.exit(2);
    }
    LoadOptions options = LoadOptions.parse(args);
    LoadConnections connections =
        new LoadConnections(options.pki(), options.port(), options.threads());
    try {
      if (options.heartbeat()) {
        new HeartbeatLoad(connections, options.serverPid())
            .run(options.workers(), options.seconds(), options.warmup(), options.windows());
      } else {
        new LongPollLoad(connections, options.serverPid())
            .run(options.workers(), options.adminPort());
      }
    } finally {
      connections.shutdown();
    }
  }
}
