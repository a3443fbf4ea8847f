package io.ql3.worker.bench.controlplane;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One measurement window of the heartbeat mode and the block it prints: heartbeats/s, the server's
 * CPU per heartbeat split by thread (from /proc, when its pid is known), the client's CPU, the load
 * average before and after, a speed probe once a second against the one taken before the load, and
 * the latency distribution. Field names and formats are quoted by docs/perf/control-plane.md.
 */
final class HeartbeatWindow {
  private final String serverPid;
  private final SpeedProbe probe;
  private final long[] quietProbe;
  private final LongAdder ok;
  private final LongAdder bad;
  private final LatencyHistogram latencies;
  private final int connections;

  /**
   * @param serverPid the server's process id for its CPU time, or null
   * @param quietProbe the probe's medians before the load: what each window's probes compare to
   * @param ok counted heartbeats, as the load adds them
   * @param bad failed, non-200 or invalid answers
   * @param connections how many h2 connections carry the load
   */
  HeartbeatWindow(
      String serverPid,
      SpeedProbe probe,
      long[] quietProbe,
      LongAdder ok,
      LongAdder bad,
      LatencyHistogram latencies,
      int connections) {
    this.serverPid = serverPid;
    this.probe = probe;
    this.quietProbe = quietProbe;
    this.ok = ok;
    this.bad = bad;
    this.latencies = latencies;
    this.connections = connections;
  }

  /** Measures for {@code seconds} (at least 1) while the load runs, then prints the block. */
  void measure(int seconds) throws InterruptedException {
    latencies.clear();
    String load0 = ProcStats.loadAverage();
    Map<String, Long> server0 = ProcStats.threadTicks(serverPid);
    long clientCpu0 = ProcStats.cpuTicks("self");
    long ok0 = ok.sum();
    long bad0 = bad.sum();
    long t0 = System.nanoTime();
    // One probe per second: how fast the cores ran during this window. Its CPU (15-20 ms a
    // second) is
    // part of the client CPU printed below.
    long[][] probes = new long[3][seconds];
    for (int i = 0; i < seconds; i++) {
      long due = t0 + (i + 1) * 1_000_000_000L;
      long[] p = probe.once();
      for (int k = 0; k < 3; k++) {
        probes[k][i] = p[k];
      }
      long left = due - System.nanoTime();
      if (left > 0) {
        Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
      }
    }
    for (long[] p : probes) {
      Arrays.sort(p);
    }
    long okCount = ok.sum() - ok0;
    long badCount = bad.sum() - bad0;
    double elapsed = (System.nanoTime() - t0) / 1e9;
    Map<String, Long> server1 = ProcStats.threadTicks(serverPid);
    long clientCpu = ProcStats.cpuTicks("self") - clientCpu0;
    String load1 = ProcStats.loadAverage();
    if (serverPid != null) {
      printServerCpu(server0, server1, elapsed, okCount);
    }
    System.out.printf(
        "client CPU: %.2f s (%.1f us per heartbeat)%n",
        clientCpu / 100.0, clientCpu * 10_000.0 / Math.max(1, okCount));
    System.out.printf(
        "heartbeats: %d ok, %d non-200 or invalid in %.1f s over %d h2 connections: %.0f/s%n",
        okCount, badCount, elapsed, connections, okCount / elapsed);
    System.out.println("load average before: " + load0 + " after: " + load1);
    System.out.printf(
        "speed probe (median of one a second, vs before the load): arithmetic %d us = %.2fx,"
            + " memory walk %d us = %.2fx, sha-256 %d us = %.2fx%n",
        probes[0][seconds / 2],
        probes[0][seconds / 2] / (double) quietProbe[0],
        probes[1][seconds / 2],
        probes[1][seconds / 2] / (double) quietProbe[1],
        probes[2][seconds / 2],
        probes[2][seconds / 2] / (double) quietProbe[2]);
    latencies.print();
  }

  private static void printServerCpu(
      Map<String, Long> server0, Map<String, Long> server1, double elapsed, long okCount) {
    // CPU time (user+sys, 10 ms ticks) the server process spent in the window: what a request
    // costs it,
    // whatever else the machine was doing. Split by thread: event loops, JIT compilers, GC/VM,
    // the rest.
    long serverCpu = server1.get("total") - server0.get("total");
    System.out.printf(
        "server CPU: %.2f s in %.1f s (%.0f%% of one core); %.1f us CPU per heartbeat"
            + " => ~%.0f heartbeats/s per fully available core%n",
        serverCpu / 100.0,
        elapsed,
        serverCpu / elapsed,
        serverCpu * 10_000.0 / Math.max(1, okCount),
        okCount / Math.max(0.01, serverCpu / 100.0));
    StringBuilder split = new StringBuilder("  by thread (us per heartbeat):");
    for (String k : List.of("io", "jit", "gc+vm", "other")) {
      long d = server1.getOrDefault(k, 0L) - server0.getOrDefault(k, 0L);
      split.append(String.format(" %s %.1f", k, d * 10_000.0 / Math.max(1, okCount)));
    }
    System.out.println(split);
    long ioTicks = server1.getOrDefault("io", 0L) - server0.getOrDefault("io", 0L);
    System.out.printf(
        "  event loops: %.0f%% in the kernel; per 1,000 heartbeats they blocked %.0f times"
            + " and were preempted %.0f times%n",
        100.0
            * (server1.getOrDefault("io-sys", 0L) - server0.getOrDefault("io-sys", 0L))
            / Math.max(1, ioTicks),
        1000.0
            * (server1.getOrDefault("io-blocked", 0L) - server0.getOrDefault("io-blocked", 0L))
            / Math.max(1, okCount),
        1000.0
            * (server1.getOrDefault("io-preempted", 0L) - server0.getOrDefault("io-preempted", 0L))
            / Math.max(1, okCount));
  }
}
