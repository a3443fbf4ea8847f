package io.ql3.worker.bench.controlplane;

import io.ql3.worker.contract.HeartbeatResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The heartbeat mode: a speed probe of the quiet machine, then every worker connects, registers and
 * sends its next heartbeat as soon as the previous answer arrived; after the warm-up, {@link
 * HeartbeatWindow} measures and prints each window, back to back. Every counted heartbeat is a 200
 * whose body the contract's strict parser accepts, carrying the next version.
 */
final class HeartbeatLoad {
  private final LoadConnections connections;
  private final String serverPid;

  /**
   * @param serverPid the server's process id for its CPU time, or null
   */
  HeartbeatLoad(LoadConnections connections, String serverPid) {
    this.connections = connections;
    this.serverPid = serverPid;
  }

  /** Runs {@code workers} for a warm-up of {@code warmup} s, then {@code windows} windows. */
  void run(int workers, int seconds, int warmup, int windows) throws Exception {
    SpeedProbe probe = new SpeedProbe();
    probe.median(50); // JIT
    long[] quietProbe = probe.median(21);
    System.out.println(
        "speed probe before the load: arithmetic "
            + quietProbe[0]
            + " us, memory walk "
            + quietProbe[1]
            + " us, sha-256 "
            + quietProbe[2]
            + " us");
    List<WorkerConnection> conns = connections.connectAll(workers);
    System.out.println(
        "connected " + conns.size() + " workers (" + connections.transport.wireName() + ")");
    LongAdder ok = new LongAdder();
    LongAdder bad = new LongAdder();
    AtomicLong measuring = new AtomicLong(0); // 0 warm-up, 1 measuring, 2 stop
    LatencyHistogram latencies = new LatencyHistogram();
    for (WorkerConnection c : conns) {
      c.register();
    }
    System.out.println("registered " + conns.size() + " sessions");
    for (WorkerConnection c : conns) {
      loop(c, ok, bad, measuring, latencies);
    }
    Thread.sleep(warmup * 1000L);
    measuring.set(1);
    HeartbeatWindow window =
        new HeartbeatWindow(serverPid, probe, quietProbe, ok, bad, latencies, conns.size());
    for (int w = 1; w <= windows; w++) {
      System.out.println("window " + w + " of " + windows + ":");
      window.measure(seconds);
    }
    measuring.set(2);
    Thread.sleep(500);
  }

  /**
   * One worker's heartbeat loop: the next heartbeat leaves as soon as the previous answer arrived
   * (one session request at a time, as the contract requires). Counted only when the answer is a
   * 200 whose body the contract's strict parser accepts and whose version is the next one.
   */
  private static void loop(
      WorkerConnection c,
      LongAdder ok,
      LongAdder bad,
      AtomicLong measuring,
      LatencyHistogram latencies) {
    if (measuring.get() == 2) {
      return;
    }
    long start = System.nanoTime();
    long sent = c.version;
    c.post("heartbeat", c.heartbeat(sent))
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                if (measuring.get() != 2) {
                  bad.increment();
                  System.err.println(c.workerId + ": " + e);
                }
                return;
              }
              if (r.status() == 200) {
                long next;
                try {
                  next = HeartbeatResponse.parse(r.body()).version();
                } catch (Exception ex) {
                  bad.increment();
                  System.err.println(c.workerId + ": invalid heartbeat response: " + ex);
                  return;
                }
                if (next != sent + 1) {
                  bad.increment();
                  System.err.println(
                      c.workerId + ": sent version " + sent + ", answered version " + next);
                  return;
                }
                c.version = next;
                ok.increment();
                long us = Math.max(1, (System.nanoTime() - start) / 1000);
                latencies.add(us);
                loop(c, ok, bad, measuring, latencies);
              } else {
                bad.increment();
                System.err.println(
                    c.workerId
                        + ": "
                        + r.status()
                        + " "
                        + new String(r.body(), StandardCharsets.UTF_8));
              }
            });
  }
}
