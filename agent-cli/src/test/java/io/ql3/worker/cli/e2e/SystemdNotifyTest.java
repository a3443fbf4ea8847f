package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Type=notify} as systemd sees it: a real agent process sends its sd_notify datagrams to a real
 * Unix datagram socket named by {@code NOTIFY_SOCKET}, as systemd sets it for the unit.
 */
class SystemdNotifyTest {
  @TempDir Path dir;

  @Test
  void readyAfterRegisterWatchdogWhileRunningStoppingAtSigterm() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
         NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      Path config = cp.agentConfig("");
      // 2 s watchdog: a ping at least every second (the edge cadence steps every second).
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"),
          Map.of("NOTIFY_SOCKET", systemd.path.toString(), "WATCHDOG_USEC", "2000000"));
      try {
        ControlPlaneFixture.await("READY=1\n" + agent.output(), Duration.ofSeconds(60),
            () -> systemd.indexOf("READY=1") >= 0);
        // The server already holds the active session when the agent says it is ready.
        assertThat(cp.sessions()).as(agent.output()).anyMatch(s -> s.status().equals("active"));
        String ready = systemd.datagrams().get(systemd.indexOf("READY=1"));
        assertThat(ready).contains("STATUS=phase running, session active generation 1");
        assertThat(agent.output()).contains("event=agent.ready");
        assertThat(mapsNativeEpoll(agent)).as("Netty's native library is mapped").isTrue();

        long before = systemd.count("WATCHDOG=1");
        ControlPlaneFixture.await("two more watchdog pings", Duration.ofSeconds(30),
            () -> systemd.count("WATCHDOG=1") >= before + 2);
        assertThat(systemd.indexOf("STOPPING=1")).isEqualTo(-1);

        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
        int stopping = systemd.indexOf("STOPPING=1");
        assertThat(stopping).as(systemd.datagrams().toString()).isGreaterThan(systemd.indexOf("READY=1"));
        List<String> all = systemd.datagrams();
        assertThat(all.get(stopping)).contains("STATUS=draining");
        assertThat(all.stream().filter(d -> d.contains("READY=1"))).hasSize(1);
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9();
        }
      }
    }
  }

  @Test
  void readyWhileRetryingWhenTheIngressIsUnreachable() throws Exception {
    Path config;
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      config = cp.agentConfig("");
    } // the server is gone: nothing listens on its port any more
    try (NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"),
          Map.of("NOTIFY_SOCKET", systemd.path.toString()));
      try {
        ControlPlaneFixture.await("READY=1\n" + agent.output(), Duration.ofSeconds(60),
            () -> systemd.indexOf("READY=1") >= 0);
        String ready = systemd.datagrams().get(systemd.indexOf("READY=1"));
        assertThat(ready).contains("STATUS=ingress unreachable, retrying; phase running, session ");
        assertThat(ready).contains("last problem: register: ");
        // no WATCHDOG_USEC: no pings
        assertThat(systemd.count("WATCHDOG=1")).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9();
        }
      }
    }
  }

  @Test
  void withoutNotifySocketNothingIsLoadedOrSent() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      AgentProcess agent = AgentProcess.start(cp.agentConfig(""), "edge", dir.resolve("agent.log"));
      try {
        ControlPlaneFixture.await("registered", Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        agent.awaitOutput("event=agent.ready notified=none", Duration.ofSeconds(30));
        assertThat(mapsNativeEpoll(agent)).as("Netty's native library is not loaded").isFalse();
        assertThat(agent.terminate(Duration.ofSeconds(60))).isZero();
        assertThat(agent.output()).doesNotContain("systemd.notify_unavailable");
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9();
        }
      }
    }
  }

  private static boolean mapsNativeEpoll(AgentProcess agent) throws java.io.IOException {
    return java.nio.file.Files.readString(Path.of("/proc/" + agent.process.pid() + "/maps"))
        .contains("netty_transport_native_epoll");
  }
}
