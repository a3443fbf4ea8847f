package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.runtime.status.StatusFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * First boot before provisioning: the agent starts with no credential files, waits (no connection,
 * no register), says why, and registers as soon as the files appear, without a restart.
 */
class BootWithoutCredentialsTest {
  @TempDir Path dir;

  @Test
  void waitsForMissingCredentialsThenRegistersWithoutARestart() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      Path creds = Files.createDirectories(dir.resolve("creds"));
      Path w = cp.pki.workerDir(ControlPlaneFixture.WORKER);
      Path config = cp.agentConfig("");
      Files.writeString(
          config,
          Files.readString(config)
              .replace(w.resolve("client.crt").toString(), creds.resolve("client.crt").toString())
              .replace(w.resolve("client.key").toString(), creds.resolve("client.key").toString())
              .replace(cp.pki.caCert().toString(), creds.resolve("ca.crt").toString())
              .replace(w.resolve("token").toString(), creds.resolve("token").toString()));
      AgentProcess agent =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("agent.log"),
              Map.of("NOTIFY_SOCKET", systemd.path.toString()));
      try {
        agent.awaitOutput(
            "event=credentials.waiting reason=FILE_UNREADABLE", Duration.ofSeconds(60));
        ControlPlaneFixture.await(
            "the status file says why",
            Duration.ofSeconds(30),
            () -> Files.exists(config.resolveSibling("status.json")));
        var status = StatusFile.read(config.resolveSibling("status.json"));
        assertThat(status.get("phase")).isEqualTo("waiting_for_credentials");
        assertThat(String.valueOf(status.get("lastProblem"))).contains("client.crt");
        ControlPlaneFixture.await(
            "systemd told to wait",
            Duration.ofSeconds(30),
            () ->
                systemd.datagrams().stream()
                    .anyMatch(
                        d ->
                            d.startsWith(
                                "EXTEND_TIMEOUT_USEC=30000000\n"
                                    + "STATUS=waiting for usable credentials: ")));
        assertThat(systemd.indexOf("READY=1")).isEqualTo(-1);
        assertThat(cp.sessions()).isEmpty();
        assertThat(cp.connections()).isEmpty();

        // Provisioning arrives a little later.
        for (String[] f :
            new String[][] {
              {"client.key", "client.key"}, {"token", "token"}, {"client.crt", "client.crt"}
            }) {
          Files.copy(w.resolve(f[0]), creds.resolve(f[1]), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.copy(cp.pki.caCert(), creds.resolve("ca.crt"));

        ControlPlaneFixture.await(
            "registered\n" + agent.output(),
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        ControlPlaneFixture.await(
            "READY=1", Duration.ofSeconds(30), () -> systemd.indexOf("READY=1") >= 0);
        assertThat(agent.process.isAlive()).isTrue();
        assertThat(agent.output())
            .contains("event=credentials.waiting")
            .contains("to=ACTIVE")
            .doesNotContain("event=agent.exit");
        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  @Test
  void sigtermWhileWaitingStopsCleanly() throws Exception {
    Path config;
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      config = cp.agentConfig("");
      Files.writeString(
          config,
          Files.readString(config)
              .replace(
                  cp.pki.workerDir(ControlPlaneFixture.WORKER).resolve("token").toString(),
                  dir.resolve("no-token-yet").toString()));
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"));
      try {
        agent.awaitOutput("event=credentials.waiting", Duration.ofSeconds(60));
        assertThat(agent.terminate(Duration.ofSeconds(30))).as(agent.output()).isZero();
        assertThat(agent.output()).contains("stopped while waiting for usable credentials");
        assertThat(cp.sessions()).isEmpty();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }
}
