package io.ql3.worker.cli.e2e;

import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.RunSubmission;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A real reference control plane on 127.0.0.1 with a fresh development PKI, plus the agent
 * configuration that points at it. Everything over real TLS 1.3 with real certificates.
 */
final class ControlPlaneFixture implements AutoCloseable {
  static final String WORKER = "edge-0001";

  final Path dir;
  final DevPki pki;
  final ControlPlaneServer server;

  /** Every server event, in order ({@code kind detail}); verbose servers also log every answer. */
  final ServerEvents events = new ServerEvents();

  /**
   * The server's timing for tests that do not choose one: a 10 s heartbeat. Not the server's
   * default (60 s): over http/1.1 an idle agent learns of new work from the next heartbeat's {@code
   * workAvailable}, so a 60 s interval would make every http/1.1 scenario wait up to a minute.
   */
  static final Settings TEN_SECOND_HEARTBEATS = new Settings(10_000, 30_000, 30_000, 500, 64);

  ControlPlaneFixture(Path dir, Alpn alpn) throws IOException, InterruptedException {
    this(dir, alpn, TEN_SECOND_HEARTBEATS, false);
  }

  /**
   * @param settings the server's timing (e.g. a 5 s heartbeat interval for scenarios that wait for
   *     heartbeats)
   * @param verbose also record an {@code answer} event for every 200 (request log for "no pull
   *     after X")
   */
  ControlPlaneFixture(Path dir, Alpn alpn, Settings settings, boolean verbose)
      throws IOException, InterruptedException {
    this.dir = dir;
    this.pki = new DevPki(dir.resolve("pki"), Duration.ofDays(30));
    pki.create(List.of(WORKER));
    this.server =
        ControlPlaneServer.start(
            new ControlPlaneServer.Config(
                pki.dir(),
                "127.0.0.1",
                0,
                0,
                alpn,
                settings,
                Clock.systemUTC(),
                1,
                events,
                verbose));
  }

  /** The server's event log, kept in memory (thread-safe). */
  static final class ServerEvents implements EventLog {
    private final List<String> lines = new java.util.ArrayList<>();

    @Override
    public synchronized void event(String kind, String detail) {
      lines.add(kind + " " + detail);
    }

    synchronized List<String> lines() {
      return List.copyOf(lines);
    }

    /**
     * Index of the first line at or after {@code from} containing every one of {@code parts}; -1 if
     * none.
     */
    synchronized int indexOf(int from, String... parts) {
      for (int i = Math.max(0, from); i < lines.size(); i++) {
        String l = lines.get(i);
        boolean all = true;
        for (String p : parts) {
          all &= l.contains(p);
        }
        if (all) {
          return i;
        }
      }
      return -1;
    }

    @Override
    public synchronized String toString() {
      return String.join("\n", lines);
    }
  }

  /**
   * Connections of the worker, open and recently closed, oldest first. The open ones are read
   * first: one that closes between the two reads is then in both, and counted once.
   */
  List<io.ql3.worker.controlplane.ingress.ConnectionRegistry.ConnectionView> connections() {
    var open = server.connections().open();
    var closed = server.connections().recentlyClosed();
    var byId =
        new java.util.TreeMap<
            Long, io.ql3.worker.controlplane.ingress.ConnectionRegistry.ConnectionView>();
    java.util.stream.Stream.concat(open.stream(), closed.stream())
        .filter(c -> WORKER.equals(c.workerId()))
        .forEach(c -> byId.put(c.id(), c));
    return List.copyOf(byId.values());
  }

  /** Answered requests of one operation (any status) so far. */
  long answered(String operation) {
    return server.stats().snapshot().entrySet().stream()
        .filter(e -> e.getKey().startsWith(operation + " "))
        .mapToLong(java.util.Map.Entry::getValue)
        .sum();
  }

  /** Writes an agent configuration for the edge profile and returns its path. */
  Path agentConfig(String extraExecution) throws IOException {
    Path w = pki.workerDir(WORKER);
    String toml =
        """
        enabled = true
        [worker]
        id = "%s"
        [ingress]
        url = "https://127.0.0.1:%d"
        [credentials]
        certificate = "%s"
        private-key = "%s"
        trust = "%s"
        token = "%s"
        [journal]
        dir = "journal"
        [execution]
        work-dir = "runs"
        max-concurrent-runs = 2
        executors = ["process", "noop", "sleep", "fail"]
        %s
        [status]
        file = "status.json"
        [metrics]
        file = "ql3-worker.prom"
        """
            .formatted(
                WORKER,
                server.ingressAddress().getPort(),
                w.resolve("client.crt"),
                w.resolve("client.key"),
                pki.caCert(),
                w.resolve("token"),
                extraExecution);
    Path agentDir = dir.resolve("agent");
    Files.createDirectories(agentDir);
    Path config = agentDir.resolve("agent.toml");
    Files.writeString(config, toml, StandardCharsets.UTF_8);
    return config;
  }

  List<String> submit(int count, String executor, String spec) {
    return server
        .controlPlane()
        .submit(
            new RunSubmission(
                count,
                executor,
                spec.getBytes(StandardCharsets.UTF_8),
                60_000,
                WORKER,
                Map.of(),
                null,
                null,
                0))
        .runIds();
  }

  Views.RunView run(String runId) {
    return server.controlPlane().run(runId).orElseThrow();
  }

  List<Views.SessionView> sessions() {
    return server.controlPlane().workers().stream()
        .filter(w -> w.workerId().equals(WORKER))
        .findFirst()
        .map(Views.WorkerView::sessions)
        .orElse(List.of());
  }

  /** Waits for a condition the system must reach; the timeout only bounds a broken run. */
  /**
   * A path the agent configuration {@link #agentConfig} wrote for {@code key} (e.g. {@code token}).
   */
  static Path configuredPath(Path config, String key) throws IOException {
    return Path.of(
        Files.readAllLines(config).stream()
            .filter(l -> l.startsWith(key + " ="))
            .findFirst()
            .orElseThrow()
            .replaceAll(".*= \"(.*)\"", "$1"));
  }

  /** True when the server has every run of {@code ids} completed. */
  boolean completed(List<String> ids) {
    return ids.stream().allMatch(id -> run(id).state().equals("completed"));
  }

  static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }

  private boolean closed;

  /** Idempotent: a test may stop the server early (e.g. to restart one on the same address). */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.close();
    }
  }
}
