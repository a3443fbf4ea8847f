package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Type=notify} as systemd sees it: a real agent process sends its sd_notify datagrams to a
 * real Unix datagram socket named by {@code NOTIFY_SOCKET}, as systemd sets it for the unit.
 */
class SystemdNotifyTest {
  @TempDir Path dir;

  /**
   * A disabled agent still says READY=1 before its exit 0: systemd fails a Type=notify unit whose
   * main process exits without it (result "protocol"), and the unit would restart and then fail.
   */
  @Test
  void aDisabledAgentSaysReadyBeforeItsCleanExit() throws Exception {
    Path config = dir.resolve("agent.toml");
    Files.writeString(config, "enabled = false\n");
    try (NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      AgentProcess agent =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("agent.log"),
              Map.of("NOTIFY_SOCKET", systemd.path.toString()));
      assertThat(agent.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(agent.process.exitValue()).as(agent.output()).isZero();
      ControlPlaneFixture.await(
          "READY=1 read by the notify socket\n" + agent.output(),
          Duration.ofSeconds(30),
          () -> systemd.indexOf("READY=1") >= 0);
      assertThat(systemd.datagrams().get(systemd.indexOf("READY=1")))
          .contains("STATUS=disabled by ")
          .contains("(enabled = false)");
    }
  }

  @Test
  void readyAfterRegisterWatchdogWhileRunningStoppingAtSigterm() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      Path config = cp.agentConfig("");
      // 2 s watchdog: a ping at least every second (the edge cadence steps every second).
      AgentProcess agent =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("agent.log"),
              Map.of("NOTIFY_SOCKET", systemd.path.toString(), "WATCHDOG_USEC", "2000000"));
      try {
        ControlPlaneFixture.await(
            "READY=1\n" + agent.output(),
            Duration.ofSeconds(60),
            () -> systemd.indexOf("READY=1") >= 0);
        // The server already holds the active session when the agent says it is ready.
        assertThat(cp.sessions()).as(agent.output()).anyMatch(s -> s.status().equals("active"));
        String ready = systemd.datagrams().get(systemd.indexOf("READY=1"));
        assertThat(ready).contains("STATUS=phase running, session active generation 1");
        agent.awaitOutput(
            "event=agent.ready", Duration.ofSeconds(30)); // logged just after the datagram
        assertThat(mapsNativeEpoll(agent)).as("Netty's native library is mapped").isTrue();

        long before = systemd.count("WATCHDOG=1");
        ControlPlaneFixture.await(
            "two more watchdog pings",
            Duration.ofSeconds(30),
            () -> systemd.count("WATCHDOG=1") >= before + 2);
        assertThat(systemd.indexOf("STOPPING=1")).isEqualTo(-1);

        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
        // The agent has sent it; the socket records it when its own thread reads it.
        ControlPlaneFixture.await(
            "STOPPING=1 read by the notify socket",
            Duration.ofSeconds(30),
            () -> systemd.indexOf("STOPPING=1") >= 0);
        int stopping = systemd.indexOf("STOPPING=1");
        assertThat(stopping)
            .as(systemd.datagrams().toString())
            .isGreaterThan(systemd.indexOf("READY=1"));
        List<String> all = systemd.datagrams();
        assertThat(all.get(stopping)).contains("STATUS=draining");
        assertThat(all.stream().filter(d -> d.contains("READY=1"))).hasSize(1);
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  /**
   * {@code WATCHDOG=1} comes from the cadence's progress, not from a timer: the cadence thread is
   * frozen for real, on something it really does at every step (the credential check re-reads a
   * changed token file), by making that file a FIFO nobody writes, like a credential mount that
   * stalls. No test-only hook. Short timings: a 250 ms cadence (the edge minimum) and a 500 ms
   * watchdog, so a ping is due every 250 ms while the cadence makes progress.
   */
  @Test
  void noWatchdogWhileTheCadenceIsFrozenAndPingsAgainWhenItResumes() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        NotifySocket systemd = new NotifySocket(dir.resolve("notify.sock"))) {
      Path config = cp.agentConfig("\n[cadence]\nperiod-ms = 250");
      // The agent's own copy of the token (the server reads the PKI's file: it must not stall).
      Path serverToken = cp.pki.workerDir(ControlPlaneFixture.WORKER).resolve("token");
      Path token = dir.resolve("agent/token");
      Files.copy(serverToken, token);
      Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(
          config,
          Files.readString(config)
              .replace("token = \"" + serverToken + "\"", "token = \"" + token + "\""));
      assertThat(Files.readString(config)).contains("token = \"" + token + "\"");
      AgentProcess agent =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("agent.log"),
              Map.of("NOTIFY_SOCKET", systemd.path.toString(), "WATCHDOG_USEC", "500000"));
      ExecutorService stall = Executors.newSingleThreadExecutor();
      Path fifo = dir.resolve("agent/token.fifo");
      Future<OutputStream> writer = null;
      try {
        ControlPlaneFixture.await(
            "READY=1\n" + agent.output(),
            Duration.ofSeconds(60),
            () -> systemd.indexOf("READY=1") >= 0);
        long running = systemd.count("WATCHDOG=1");
        ControlPlaneFixture.await(
            "watchdog pings while the cadence makes progress",
            Duration.ofSeconds(30),
            () -> systemd.count("WATCHDOG=1") >= running + 4);

        // Freeze: the token file becomes a FIFO (renamed over it: a new inode, so the next check
        // re-reads it once its settle window passed); reading it blocks until someone writes.
        Process mkfifo =
            new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        Files.move(
            fifo, token, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        // Opening a FIFO for writing returns once a reader opened it: then the agent is blocked
        // reading the token. The writer stays open and silent, so the read keeps blocking.
        writer = stall.submit(() -> Files.newOutputStream(token, StandardOpenOption.WRITE));
        ControlPlaneFixture.await(
            "the agent reading the stalled token\n" + agent.output(),
            Duration.ofSeconds(30),
            writer::isDone);
        // The reader is the cadence thread, or the transport's event loop holding the provider's
        // lock
        // that the cadence's next check then waits for: either way the cadence is stopped within
        // its cached check (250 ms) plus one step. Grace 1 s (4 cadence periods) for a step in
        // flight,
        // then a 3 s window: 12 cadence periods and 12 ping intervals in which a live cadence, or a
        // timer at the same half-interval, sends 6 to 12 pings. None may arrive.
        long atFreeze = systemd.count("WATCHDOG=1");
        Thread.sleep(1_000);
        long afterGrace = systemd.count("WATCHDOG=1");
        assertThat(afterGrace - atFreeze)
            .as("pings after the cadence met the stalled read")
            .isLessThanOrEqualTo(2);
        Thread.sleep(3_000);
        assertThat(agent.process.isAlive()).as(agent.output()).isTrue();
        assertThat(systemd.count("WATCHDOG=1") - afterGrace)
            .as("WATCHDOG=1 in 3 s (12 cadence periods) with the cadence frozen")
            .isZero();

        // Unfreeze: a regular token file replaces the FIFO, then the blocked read gets the same
        // token.
        Path fresh = dir.resolve("agent/token.new");
        Files.copy(serverToken, fresh);
        Files.setPosixFilePermissions(fresh, PosixFilePermissions.fromString("rw-------"));
        Files.move(
            fresh, token, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (OutputStream out = writer.get()) {
          out.write(Files.readAllBytes(serverToken));
        }
        long resumed = systemd.count("WATCHDOG=1");
        ControlPlaneFixture.await(
            "watchdog pings once the cadence runs again\n" + agent.output(),
            Duration.ofSeconds(30),
            () -> systemd.count("WATCHDOG=1") >= resumed + 4);
        System.out.println(
            "watchdog around a frozen cadence: "
                + atFreeze
                + " pings before, "
                + (afterGrace - atFreeze)
                + " in the 1 s grace, 0 in the 3 s window, "
                + (systemd.count("WATCHDOG=1") - resumed)
                + " since the resume");
        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
        // A failed run may leave the writer waiting for a reader (release it) or open (close it).
        if (writer != null) {
          if (!writer.isDone() && Files.exists(token) && !Files.isRegularFile(token)) {
            Files.newInputStream(token).close();
          }
          try {
            writer.get(10, TimeUnit.SECONDS).close();
          } catch (Exception ignored) {
            // nothing more to release
          }
        }
        stall.shutdownNow();
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
      AgentProcess agent =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("agent.log"),
              Map.of("NOTIFY_SOCKET", systemd.path.toString()));
      try {
        ControlPlaneFixture.await(
            "READY=1\n" + agent.output(),
            Duration.ofSeconds(60),
            () -> systemd.indexOf("READY=1") >= 0);
        String ready = systemd.datagrams().get(systemd.indexOf("READY=1"));
        assertThat(ready).contains("STATUS=ingress unreachable, retrying; phase running, session ");
        assertThat(ready).contains("last problem: register: ");
        // no WATCHDOG_USEC: no pings
        assertThat(systemd.count("WATCHDOG=1")).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  @Test
  void withoutNotifySocketNothingIsLoadedOrSent() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      AgentProcess agent = AgentProcess.start(cp.agentConfig(""), "edge", dir.resolve("agent.log"));
      try {
        ControlPlaneFixture.await(
            "registered",
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        agent.awaitOutput("event=agent.ready notified=none", Duration.ofSeconds(30));
        assertThat(mapsNativeEpoll(agent)).as("Netty's native library is not loaded").isFalse();
        assertThat(agent.terminate(Duration.ofSeconds(60))).isZero();
        assertThat(agent.output()).doesNotContain("systemd.notify_unavailable");
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  private static boolean mapsNativeEpoll(AgentProcess agent) throws java.io.IOException {
    return java.nio.file.Files.readString(Path.of("/proc/" + agent.process.pid() + "/maps"))
        .contains("netty_transport_native_epoll");
  }
}
