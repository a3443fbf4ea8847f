package io.ql3.worker.bench.controlplane;

import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The longpoll mode: every worker connects, registers and parks one pull (waitMs 60000); prints how
 * many the server holds (admin {@code /connections}), then submits one run per worker (admin {@code
 * /runs}) and measures until every pull got its offer.
 */
final class LongPollLoad {
  private final LoadConnections connections;
  private final String serverPid;

  /**
   * @param serverPid the server's process id for its CPU time, or null
   */
  LongPollLoad(LoadConnections connections, String serverPid) {
    this.connections = connections;
    this.serverPid = serverPid;
  }

  void run(int workers, int adminPort) throws Exception {
    List<WorkerConnection> conns = connections.connectAll(workers);
    for (WorkerConnection c : conns) {
      c.register();
    }
    System.out.println("registered " + conns.size() + " sessions");
    CountDownLatch answered = new CountDownLatch(conns.size());
    AtomicLong failures = new AtomicLong();
    LongAdder offers = new LongAdder();
    AtomicLong lastAnswer = new AtomicLong();
    for (WorkerConnection c : conns) {
      byte[] body =
          new PullRequest(c.generation, 1, new PullId(WorkerConnection.IDS.next()), 60_000)
              .toCanonicalBytes();
      c.post("pull", body)
          .whenComplete(
              (r, e) -> {
                if (e == null) {
                  byte[] b = r.body();
                  try {
                    offers.add(PullResponse.parse(b).offers().size());
                  } catch (Exception ex) {
                    if (failures.incrementAndGet() <= 5) {
                      System.err.println(
                          c.workerId
                              + ": "
                              + r.status()
                              + " "
                              + new String(b, StandardCharsets.UTF_8));
                    }
                  }
                } else {
                  System.err.println(c.workerId + ": " + e);
                }
                lastAnswer.set(System.nanoTime());
                answered.countDown();
              });
    }
    HttpClient admin = HttpClient.newHttpClient();
    String parked = "";
    for (int i = 0; i < 600; i++) {
      parked =
          admin
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + adminPort + "/connections"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      if (parked.contains("\"parkedPulls\":" + workers)) {
        break;
      }
      Thread.sleep(100);
    }
    String count = parked.replaceAll(".*\"parkedPulls\":(\\d+).*", "$1");
    System.out.println(
        "server holds "
            + count
            + " parked pulls (answered early: "
            + (workers - answered.getCount())
            + ")");
    String load0 = ProcStats.loadAverage();
    long serverCpu0 = ProcStats.cpuTicks(serverPid);
    long t0 = System.nanoTime();
    HttpResponse<String> sub =
        admin.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/runs"))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"count\":" + workers + ",\"executor\":\"noop\",\"spec\":{}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    long submitted = System.nanoTime();
    boolean all = answered.await(60, TimeUnit.SECONDS);
    long serverCpu = ProcStats.cpuTicks(serverPid) - serverCpu0;
    System.out.printf(
        "submit of %d runs answered %d in %.1f ms; all %d parked pulls answered: %s, offers: %d, "
            + "failures: %d, last answer %.1f ms after the submit was sent%n",
        workers,
        sub.statusCode(),
        (submitted - t0) / 1e6,
        workers,
        all,
        offers.sum(),
        failures.get(),
        (lastAnswer.get() - t0) / 1e6);
    System.out.printf(
        "server CPU from the submit to the last answer: %.2f s; load average before: %s after: %s%n",
        serverCpu / 100.0, load0, ProcStats.loadAverage());
  }
}
