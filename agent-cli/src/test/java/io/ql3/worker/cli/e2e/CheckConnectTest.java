package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ql3.worker.cli.Main;
import io.ql3.worker.controlplane.ControlPlaneServer;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ql3-worker check --connect} against the real reference control plane over real TLS 1.3:
 * one handshake with the configured credentials and the agent's own transport, the negotiated
 * protocol reported, and nothing on the wire beyond the handshake (the server's admin API shows a
 * connection with zero requests and no session). Failures each get a clear message and their own
 * exit code.
 */
class CheckConnectTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  static final ObjectMapper JSON = new ObjectMapper();

  private int check(Path config) {
    return Main.execute(
        new String[] {"check", "--profile", "edge", "--config", config.toString(), "--connect"},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** GET on the control plane's admin API (plain HTTP on 127.0.0.1). */
  private static JsonNode admin(ControlPlaneFixture cp, String path) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cp.server.adminAddress().getPort() + path))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** The worker's connections as the admin API lists them, open and recently closed. */
  private static List<JsonNode> workerConnections(ControlPlaneFixture cp) throws Exception {
    JsonNode c = admin(cp, "/connections");
    List<JsonNode> mine = new ArrayList<>();
    for (String list : List.of("open", "recentlyClosed")) {
      for (JsonNode n : c.get(list)) {
        if (ControlPlaneFixture.WORKER.equals(n.path("workerId").asText())) {
          mine.add(n);
        }
      }
    }
    return mine;
  }

  /**
   * Nothing reached the state machine: no request answered at all, and no session for the worker.
   */
  private static void assertNothingRequested(ControlPlaneFixture cp) throws Exception {
    assertThat(admin(cp, "/connections").get("requests").size())
        .as("requests by operation and status")
        .isZero();
    for (JsonNode w : admin(cp, "/sessions").get("workers")) {
      if (ControlPlaneFixture.WORKER.equals(w.path("workerId").asText())) {
        assertThat(w.get("sessions").size()).as("sessions of the worker").isZero();
      }
    }
    assertThat(cp.events.indexOf(0, "register")).as(cp.events.toString()).isNegative();
    assertThat(cp.server.auditor().violations()).isEmpty();
  }

  @Test
  void h2HandshakeIsReportedAndNothingIsRequested() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      assertThat(check(cp.agentConfig(""))).as(out() + err()).isZero();
      assertThat(out())
          .contains(
              "connect: ok (127.0.0.1:" + cp.server.ingressAddress().getPort() + ", TLSv1.3, ")
          .contains("ALPN h2")
          .contains("client certificate accepted")
          .contains("nothing was registered and no request was sent");
      ControlPlaneFixture.await(
          "the server saw the connection close",
          Duration.ofSeconds(10),
          () -> cp.events.indexOf(0, "disconnect", "worker=" + ControlPlaneFixture.WORKER) >= 0);
      List<JsonNode> conns = workerConnections(cp);
      assertThat(conns).hasSize(1);
      assertThat(conns.get(0).get("protocol").asText()).isEqualTo("h2");
      assertThat(conns.get(0).get("requests").asLong()).isZero();
      assertThat(conns.get(0).get("closedAtMs").asLong()).as("closed by the check").isPositive();
      assertNothingRequested(cp);
    }
  }

  @Test
  void http1OnlyServerIsReportedAndNothingIsRequested() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.HTTP1_ONLY)) {
      assertThat(check(cp.agentConfig(""))).as(out() + err()).isZero();
      assertThat(out())
          .contains("TLSv1.3")
          .contains("ALPN http/1.1")
          .contains("an http/1.1 server confirms it only by answering a request");
      ControlPlaneFixture.await(
          "the server saw the connection close",
          Duration.ofSeconds(10),
          () -> cp.events.indexOf(0, "disconnect", "worker=" + ControlPlaneFixture.WORKER) >= 0);
      List<JsonNode> conns = workerConnections(cp);
      assertThat(conns).hasSize(1);
      assertThat(conns.get(0).get("protocol").asText()).isEqualTo("http/1.1");
      assertThat(conns.get(0).get("requests").asLong()).isZero();
      assertNothingRequested(cp);
    }
  }

  /**
   * The agent's trust bundle verifies its own chain (so the local checks pass) but not the
   * server's: the server presents a certificate of another CA while it still verifies clients with
   * the agent's CA.
   */
  @Test
  void aTrustBundleThatDoesNotVerifyTheServerFailsClearlyWith76() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      DevPki other = new DevPki(dir.resolve("other-pki"), Duration.ofDays(30));
      other.create(List.of());
      Path mixed = dir.resolve("mixed-pki");
      Files.createDirectories(mixed);
      Files.copy(cp.pki.caCert(), mixed.resolve("ca.crt"));
      Files.copy(cp.pki.dir().resolve("ca.key"), mixed.resolve("ca.key"));
      Files.copy(other.dir().resolve("server.crt"), mixed.resolve("server.crt"));
      Files.copy(other.dir().resolve("server.key"), mixed.resolve("server.key"));
      copyTree(cp.pki.dir().resolve("workers"), mixed.resolve("workers"));
      try (ControlPlaneServer server =
          ControlPlaneServer.start(
              new ControlPlaneServer.Config(
                  mixed,
                  "127.0.0.1",
                  0,
                  0,
                  Alpn.H2_AND_HTTP1,
                  Settings.defaults(),
                  Clock.systemUTC(),
                  1,
                  EventLog.quiet(),
                  false))) {
        Path config = cp.agentConfig("");
        Files.writeString(
            config,
            Files.readString(config)
                .replace(
                    "127.0.0.1:" + cp.server.ingressAddress().getPort(),
                    "127.0.0.1:" + server.ingressAddress().getPort()));

        assertThat(check(config)).as(out() + err()).isEqualTo(76);
        assertThat(out()).contains("credentials: ok").doesNotContain("connect: ok");
        assertThat(err())
            .contains("connect: 127.0.0.1:" + server.ingressAddress().getPort())
            .contains(
                "does not verify against the trust bundle "
                    + cp.pki.caCert()
                    + " (credentials.trust)");
        assertThat(server.connections().open()).isEmpty();
        assertThat(server.connections().recentlyClosed()).as("no handshake completed").isEmpty();
        assertThat(server.stats().snapshot()).as("no request").isEmpty();
        assertThat(server.controlPlane().workers().stream().flatMap(w -> w.sessions().stream()))
            .isEmpty();
      }
    }
  }

  /**
   * TLS 1.3: the server refuses our certificate only after the client's side of the handshake is
   * done. The check waits for that verdict (h2: the server's SETTINGS prove acceptance; http/1.1: a
   * refusal within the confirmation window) instead of reporting success too early. Here the server
   * verifies clients with another CA than the one that issued ours.
   */
  @Test
  void aServerThatRefusesOurCertificateFailsClearlyWith77() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      DevPki other = new DevPki(dir.resolve("other-pki"), Duration.ofDays(30));
      other.create(List.of());
      Path mixed = dir.resolve("mixed-pki");
      Files.createDirectories(mixed);
      Files.copy(other.caCert(), mixed.resolve("ca.crt"));
      Files.copy(other.dir().resolve("ca.key"), mixed.resolve("ca.key"));
      Files.copy(cp.pki.dir().resolve("server.crt"), mixed.resolve("server.crt"));
      Files.copy(cp.pki.dir().resolve("server.key"), mixed.resolve("server.key"));
      copyTree(cp.pki.dir().resolve("workers"), mixed.resolve("workers"));
      for (Alpn alpn : List.of(Alpn.H2_AND_HTTP1, Alpn.HTTP1_ONLY)) {
        out.reset();
        err.reset();
        try (ControlPlaneServer server =
            ControlPlaneServer.start(
                new ControlPlaneServer.Config(
                    mixed,
                    "127.0.0.1",
                    0,
                    0,
                    alpn,
                    Settings.defaults(),
                    Clock.systemUTC(),
                    1,
                    EventLog.quiet(),
                    false))) {
          Path config = cp.agentConfig("");
          Files.writeString(
              config,
              Files.readString(config)
                  .replace(
                      "127.0.0.1:" + cp.server.ingressAddress().getPort(),
                      "127.0.0.1:" + server.ingressAddress().getPort()));

          assertThat(check(config)).as(alpn + "\n" + out() + err()).isEqualTo(77);
          assertThat(out()).contains("credentials: ok").doesNotContain("connect: ok");
          assertThat(err()).contains("the server refused our client certificate");
          assertThat(server.stats().snapshot()).as("no request").isEmpty();
        }
      }
    }
  }

  private static void copyTree(Path from, Path to) throws java.io.IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Files.copy(p, to.resolve(from.relativize(p).toString()));
      }
    }
  }

  @Test
  void nothingListeningFailsClearlyWith69() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      int freePort;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        freePort = s.getLocalPort();
      }
      Path config = cp.agentConfig("");
      Files.writeString(
          config,
          Files.readString(config)
              .replace(
                  "127.0.0.1:" + cp.server.ingressAddress().getPort(), "127.0.0.1:" + freePort));

      assertThat(check(config)).as(out() + err()).isEqualTo(69);
      assertThat(err())
          .contains("connect: 127.0.0.1:" + freePort + ": connection refused or unreachable");
      assertThat(out()).doesNotContain("connect: ok");
    }
  }
}
