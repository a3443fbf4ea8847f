package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.ConnectionRegistry;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials rotated by atomic file replacement while the agent runs, without a restart: a new
 * bearer token (the server re-reads the same file), then a new client certificate and key (the
 * agent opens a new connection with them, break-before-make). The session stays the same
 * throughout.
 */
class CredentialRotationTest {
  @TempDir Path dir;

  @Test
  void tokenAndCertificateRotateWithoutARestart() throws Exception {
    Settings fast = new Settings(5_000, 15_000, 15_000, 500, 64);
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, fast, false)) {
      Path config = cp.agentConfig("");
      try (InProcessAgent agent = InProcessAgent.start(config)) {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        String sessionId = cp.sessions().get(0).sessionId();

        // ---- token: the agent's token file IS the server's (PKI/workers/ID/token), replaced
        // atomically.
        long before = cp.sessions().get(0).version();
        cp.pki.writeToken(ControlPlaneFixture.WORKER, cp.pki.newToken());
        // Only the new token is accepted from now on. The second heartbeat after the swap was
        // surely sent
        // after it (one interval after the first one's answer): its acceptance proves the new
        // token.
        ControlPlaneFixture.await(
            "a heartbeat with the new token",
            Duration.ofSeconds(30),
            () -> cp.sessions().get(0).version() >= before + 2);
        long rejectedInWindow = rejected(cp);
        long afterFirst = cp.sessions().get(0).version();
        String run = cp.submit(1, "noop", "{}").get(0);
        ControlPlaneFixture.await(
            "a run after the token rotation",
            Duration.ofSeconds(30),
            () -> cp.run(run).state().equals("completed"));
        ControlPlaneFixture.await(
            "another heartbeat",
            Duration.ofSeconds(30),
            () -> cp.sessions().get(0).version() > afterFirst);
        assertThat(rejected(cp))
            .as("no 401 once the new token was in use")
            .isEqualTo(rejectedInWindow);
        System.out.println(
            "token rotation: 401 answers before the agent's first request with the new token: "
                + rejectedInWindow);

        // ---- certificate: a new key pair and certificate, both files swapped by rename.
        int connectionsBefore = cp.connections().size();
        Path workerDir = cp.pki.workerDir(ControlPlaneFixture.WORKER);
        Files.createDirectories(cp.pki.workerDir("staging"));
        new DevPki(cp.pki.dir(), Duration.ofDays(10))
            .issueClient("staging", ControlPlaneFixture.WORKER, true);
        long swappedAt = System.currentTimeMillis();
        Files.move(
            cp.pki.workerDir("staging").resolve("client.key"),
            workerDir.resolve("client.key"),
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        Files.move(
            cp.pki.workerDir("staging").resolve("client.crt"),
            workerDir.resolve("client.crt"),
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);

        ControlPlaneFixture.await(
            "a new connection that carries requests",
            Duration.ofSeconds(60),
            () -> {
              List<ConnectionRegistry.ConnectionView> c = cp.connections();
              if (c.isEmpty()) {
                return false; // the old connection is gone, the new one not yet open
              }
              ConnectionRegistry.ConnectionView last = c.get(c.size() - 1);
              return c.size() > connectionsBefore
                  && last.openedAtMs() >= swappedAt
                  && last.requests() > 0;
            });
        // The agent installed the new certificate (10 days, the old one 30): its status says so.
        Path status = config.resolveSibling("status.json");
        ControlPlaneFixture.await(
            "the status shows the new certificate",
            Duration.ofSeconds(30),
            () -> daysToExpiry(status) <= 10);
        String run2 = cp.submit(1, "noop", "{}").get(0);
        ControlPlaneFixture.await(
            "a run after the certificate rotation",
            Duration.ofSeconds(30),
            () -> cp.run(run2).state().equals("completed"));

        // Never restarted: one session all along, one agent start.
        assertThat(cp.sessions()).hasSize(1);
        assertThat(cp.sessions().get(0).sessionId()).isEqualTo(sessionId);
        assertThat(cp.sessions().get(0).status()).isEqualTo("active");
        assertThat(agent.count("event=agent.start")).isEqualTo(1);
        // Break-before-make: never two connections of the worker at once.
        assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
        assertThat(agent.shutdown(Duration.ofSeconds(60))).isZero();
        assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
      }
    }
  }

  private static long rejected(ControlPlaneFixture cp) {
    long n = 0;
    for (Map.Entry<String, Long> e : cp.server.stats().snapshot().entrySet()) {
      if (e.getKey().endsWith(" 401")) {
        n += e.getValue();
      }
    }
    return n;
  }

  private static long daysToExpiry(Path status) {
    try {
      Matcher m =
          Pattern.compile("\"certificateDaysToExpiry\":(\\d+)").matcher(Files.readString(status));
      return m.find() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
    } catch (java.io.IOException e) {
      return Long.MAX_VALUE; // being replaced: look again
    }
  }
}
