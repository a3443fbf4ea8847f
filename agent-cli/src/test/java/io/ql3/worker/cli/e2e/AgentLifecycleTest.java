package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.cli.config.TomlConfigLoader;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import io.ql3.worker.runtime.WorkerAgent;
import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.log.EventLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole agent against a real reference control plane over real TLS 1.3: register → heartbeats →
 * offers → completions → draining → offline, on ONE connection, with zero contract violations
 * recorded by the server's auditor. Once with h2 and once with http/1.1 only.
 */
class AgentLifecycleTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Alpn.class)
  void fullLifeOnOneConnection(Alpn alpn) throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, alpn)) {
      Path configFile = cp.agentConfig("");
      AgentConfig config =
          ((ConfigReader.Enabled) new TomlConfigLoader().load(configFile, AgentProfile.EDGE))
              .config();
      ByteArrayOutputStream logs = new ByteArrayOutputStream();
      // Agent lines go to the test's output too (target/surefire-reports/*-output.txt).
      PrintStream tee =
          new PrintStream(
              new java.io.OutputStream() {
                @Override
                public void write(int b) {
                  logs.write(b);
                  System.out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                  logs.write(b, off, len);
                  System.out.write(b, off, len);
                }
              },
              true,
              StandardCharsets.UTF_8);
      EventLog log = new EventLog(tee, AgentConfig.LogFormat.LOGFMT, Clock.systemUTC());
      WorkerAgent agent =
          new WorkerAgent(
              config, new WorkerAgent.Environment(Clock.systemUTC(), Ticker.SYSTEM, log, false));
      CompletableFuture<Integer> exit =
          CompletableFuture.supplyAsync(agent::run, r -> new Thread(r, "agent-main").start());
      try {

        ControlPlaneFixture.await(
            "the agent registers",
            Duration.ofSeconds(30),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        List<String> ok =
            cp.submit(
                3,
                "process",
                "{\"argv\":[\"/bin/sh\",\"-c\",\"echo hello from $QL3_RUN_ID\"],\"cwd\":null,\"env\":{}}");
        List<String> failing =
            cp.submit(
                1, "process", "{\"argv\":[\"/bin/sh\",\"-c\",\"exit 3\"],\"cwd\":null,\"env\":{}}");
        List<String> noop = cp.submit(2, "noop", "{}");
        ControlPlaneFixture.await(
            "every run completes",
            Duration.ofSeconds(60),
            () -> {
              for (List<String> ids : List.of(ok, failing, noop)) {
                for (String id : ids) {
                  if (!cp.run(id).state().equals("completed")) {
                    return false;
                  }
                }
              }
              return true;
            });
        for (String id : ok) {
          Views.RunView v = cp.run(id);
          assertThat(v.outcome()).as(v.toString()).isEqualTo("succeeded");
          assertThat(v.completion()).contains("hello from " + id);
        }
        assertThat(cp.run(failing.get(0)).outcome()).isEqualTo("failed");
        assertThat(cp.run(failing.get(0)).completion()).contains("\"exitCode\":3");
        for (String id : noop) {
          assertThat(cp.run(id).outcome()).isEqualTo("succeeded");
        }

        agent.requestShutdown();
        assertThat(agent.awaitStopped(Duration.ofSeconds(60))).isTrue();
        assertThat(exit.get()).isEqualTo(0);

        List<Views.SessionView> sessions = cp.sessions();
        assertThat(sessions).hasSize(1);
        assertThat(sessions.get(0).status()).isEqualTo("offline");
        assertThat(cp.server.auditor().violations())
            .as(logs.toString(StandardCharsets.UTF_8))
            .isEmpty();
        // One connection for the whole life: register, heartbeats, pulls, completions, transitions.
        assertThat(cp.connections()).hasSize(1);
        String prom = java.nio.file.Files.readString(configFile.resolveSibling("ql3-worker.prom"));
        assertThat(prom)
            .contains("ql3_worker_requests_total{operation=\"complete\",result=\"success\"} 6")
            .contains("ql3_worker_runs_total{outcome=\"succeeded\"} 5")
            .contains("ql3_worker_runs_total{outcome=\"failed\"} 1")
            .contains("ql3_worker_session_state{state=\"offline\"} 1")
            .contains("ql3_worker_connections_opened_total 1");
        String text = logs.toString(StandardCharsets.UTF_8);
        assertThat(text)
            .contains("event=session.state from=ACTIVE to=DRAINING")
            .contains("event=session.state from=DRAINING to=OFFLINE")
            .contains("event=journal.released");
        // The start line names the runtime the agent runs on (a bundled one wins over JAVA_HOME).
        assertThat(text.lines().filter(l -> l.contains("event=agent.start")))
            .singleElement()
            .asString()
            .contains(" java_home=")
            .contains(System.getProperty("java.home"));
      } finally {
        // A failed assertion must not leave the agent running against a closed server.
        agent.requestShutdown();
        agent.requestShutdown();
      }
    }
  }
}
