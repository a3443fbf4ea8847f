package io.ql3.worker.bench.controlplane;

import java.nio.file.Path;

/**
 * The load tool's command line: {@code heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS]
 * [WARMUP] [THREADS] [SERVER_PID] [WINDOWS]}, positional, with the defaults SECONDS 20, WARMUP 10,
 * THREADS 1, no SERVER_PID and WINDOWS 1. Any mode other than {@code heartbeat} is longpoll.
 *
 * @param threads the client's event loop threads
 * @param serverPid the server's process id for its CPU time, or null
 * @param windows measurement windows of SECONDS each (heartbeat mode; read only there)
 */
record LoadOptions(
    String mode,
    Path pki,
    int port,
    int adminPort,
    int workers,
    int seconds,
    int warmup,
    int threads,
    String serverPid,
    int windows) {
  static final String USAGE =
      "usage: ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS] [WARMUP] [THREADS] [SERVER_PID] [WINDOWS]";

  /** The five required arguments are there. */
  static boolean complete(String[] args) {
    return args.length >= 5;
  }

  /** Parses a {@link #complete} command line; a malformed number throws. */
  static LoadOptions parse(String[] args) {
    String mode = args[0];
    Path pki = Path.of(args[1]);
    int port = Integer.parseInt(args[2]);
    int adminPort = Integer.parseInt(args[3]);
    int workers = Integer.parseInt(args[4]);
    int seconds = args.length > 5 ? Integer.parseInt(args[5]) : 20;
    int warmup = args.length > 6 ? Integer.parseInt(args[6]) : 10;
    int threads = args.length > 7 ? Integer.parseInt(args[7]) : 1;
    String serverPid = args.length > 8 ? args[8] : null;
    int windows = mode.equals("heartbeat") && args.length > 9 ? Integer.parseInt(args[9]) : 1;
    return new LoadOptions(
        mode, pki, port, adminPort, workers, seconds, warmup, threads, serverPid, windows);
  }

  boolean heartbeat() {
    return mode.equals("heartbeat");
  }
}
