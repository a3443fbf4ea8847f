package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.RunSubmission;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A real server on 127.0.0.1 (ephemeral ports, real TLS, a PKI in a temp dir) driven by a {@link
 * TestClock}.
 */
final class Harness implements AutoCloseable {
  static final String W1 = "edge-0001";
  static final String W2 = "edge-0002";
  static final Settings SETTINGS = new Settings(10_000, 30_000, 45_000, 500, 64);
  private static Path sharedPki;

  static {
    LeakRecorder.install();
  }

  final TestClock clock = new TestClock();
  final Path pki;
  final ControlPlaneServer server;
  final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final List<WorkerClient> clients = new ArrayList<>();

  Harness() throws Exception {
    this(Alpn.H2_AND_HTTP1);
  }

  Harness(Alpn alpn) throws Exception {
    this(alpn, SocketTransport.AUTO);
  }

  Harness(Alpn alpn, SocketTransport transport) throws Exception {
    this.pki = freshPki();
    EventLog log = (kind, detail) -> events.add(kind + " " + detail);
    try {
      this.server =
          ControlPlaneServer.start(
              new ControlPlaneServer.Config(
                  pki, "127.0.0.1", 0, 0, alpn, SETTINGS, clock, 1, log, false, transport));
    } catch (Exception | Error e) {
      deleteTree(pki);
      throw e;
    }
  }

  /**
   * Key generation is the slow part: one PKI per JVM, copied per harness (tokens get rotated by
   * tests).
   */
  private static synchronized Path freshPki() throws Exception {
    if (sharedPki == null) {
      sharedPki = Files.createTempDirectory("ql3cp-pki-");
      // Shared by every harness of this test JVM: removed when the JVM ends.
      Path shared = sharedPki;
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> deleteTree(shared), "ql3cp-test-pki-cleanup"));
      DevPki pki = new DevPki(sharedPki, Duration.ofDays(1));
      pki.create(List.of(W1, W2));
      // A CN-only certificate (no URI SAN) proving edge-0001, and a URI SAN of another form.
      pki.issueClient("cn-only", W1, false);
      pki.writeToken("cn-only", pki.newToken());
    }
    Path copy = Files.createTempDirectory("ql3cp-pki-copy-");
    try (var walk = Files.walk(sharedPki)) {
      for (Path p : walk.toList()) {
        Path target = copy.resolve(sharedPki.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    // The CN-only certificate proves edge-0001: it uses edge-0001's token.
    Files.copy(
        copy.resolve("workers/edge-0001/token"),
        copy.resolve("workers/cn-only/token"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return copy;
  }

  int port() {
    return server.ingressAddress().getPort();
  }

  ControlPlane cp() {
    return server.controlPlane();
  }

  WorkerClient client(String certDir) throws Exception {
    return client(certDir, HttpClient.Version.HTTP_2);
  }

  WorkerClient client(String certDir, HttpClient.Version version) throws Exception {
    WorkerClient c = new WorkerClient(pki, certDir, port(), version);
    clients.add(c);
    return c;
  }

  List<String> submit(int count, String executor, String spec, String workerId) {
    return cp().submit(
            new RunSubmission(
                count,
                executor,
                spec.getBytes(StandardCharsets.UTF_8),
                60_000,
                workerId,
                Map.of(),
                null,
                null,
                0))
        .runIds();
  }

  long violations(ViolationKind kind) {
    return server.auditor().count(kind);
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      deleteTree(pki);
    }
    LeakRecorder.assertNoLeaks();
  }

  /**
   * Deletes a temp directory tree, children first; best effort (a test must not fail on cleanup).
   */
  static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      System.err.println("cannot delete " + root + ": " + e);
    }
  }
}
