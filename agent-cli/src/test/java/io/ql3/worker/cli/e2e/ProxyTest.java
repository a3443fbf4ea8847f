package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.cli.Main;
import io.ql3.worker.controlplane.ingress.Alpn;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent through a real HTTP CONNECT proxy (tinyproxy): mTLS end to end, one connection. */
class ProxyTest {
  @TempDir Path dir;

  private static Path withProxyKey(Path config, String url) throws Exception {
    String text = Files.readString(config);
    Files.writeString(
        config,
        text.replaceFirst(
            "\\[ingress]\n(url = [^\n]*\n)", "[ingress]\n$1proxy = \"" + url + "\"\n"));
    return config;
  }

  private static String connects(TinyProxy proxy, int port) throws Exception {
    return proxy
        .logText()
        .lines()
        .filter(l -> l.contains("CONNECT") && l.contains(":" + port))
        .reduce("", (a, b) -> a + b + "\n");
  }

  @Test
  void ingressProxyTunnelsTheOneConnectionAndRunsWork() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        TinyProxy proxy = new TinyProxy(dir.resolve("proxy"))) {
      int ingressPort = cp.server.ingressAddress().getPort();
      Path config = withProxyKey(cp.agentConfig(""), proxy.url());
      Files.writeString(
          config,
          Files.readString(config)
              .replace("[ingress]\n", "[ingress]\nconnect-timeout-ms = 7000\n"));
      AgentProcess agent = AgentProcess.start(config, "edge", dir.resolve("agent.log"));
      try {
        ControlPlaneFixture.await(
            "registered through the proxy\n" + agent.output(),
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        String run = cp.submit(1, "noop", "{}").get(0);
        ControlPlaneFixture.await(
            "run completed", Duration.ofSeconds(60), () -> cp.run(run).state().equals("completed"));
        assertThat(agent.output())
            .contains("event=ingress.route")
            .contains("proxy=" + proxy.url())
            .contains("source=ingress.proxy")
            .as("the configured connect timeout is the one in force")
            .contains("connect_timeout_ms=7000");
        assertThat(connects(proxy, ingressPort)).as(proxy.logText()).isNotEmpty();
        assertThat(cp.connections()).hasSize(1); // still one connection, through the tunnel
        assertThat(agent.terminate(Duration.ofSeconds(60))).as(agent.output()).isZero();
      } finally {
        if (agent.process.isAlive()) {
          agent.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  @Test
  void httpsProxyFromTheEnvironmentAndNoProxyBypassesIt() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        TinyProxy proxy = new TinyProxy(dir.resolve("proxy"))) {
      int ingressPort = cp.server.ingressAddress().getPort();
      Path config = cp.agentConfig("");
      AgentProcess viaEnv =
          AgentProcess.start(
              config, "edge", dir.resolve("env.log"), Map.of("HTTPS_PROXY", proxy.url()));
      try {
        ControlPlaneFixture.await(
            "registered via HTTPS_PROXY",
            Duration.ofSeconds(60),
            () -> cp.sessions().stream().anyMatch(s -> s.status().equals("active")));
        assertThat(viaEnv.output()).contains("source=HTTPS_PROXY");
        assertThat(connects(proxy, ingressPort)).isNotEmpty();
        assertThat(viaEnv.terminate(Duration.ofSeconds(60))).isZero();
      } finally {
        if (viaEnv.process.isAlive()) {
          viaEnv.kill9AndRemoveItsCgroup();
        }
      }
      String before = connects(proxy, ingressPort);
      AgentProcess bypass =
          AgentProcess.start(
              config,
              "edge",
              dir.resolve("bypass.log"),
              Map.of("HTTPS_PROXY", proxy.url(), "NO_PROXY", "localhost,127.0.0.1"));
      try {
        bypass.awaitOutput(
            "event=session.state from=REGISTERING to=ACTIVE", Duration.ofSeconds(60));
        assertThat(bypass.output()).contains("proxy=none").contains("NO_PROXY covers 127.0.0.1");
        assertThat(connects(proxy, ingressPort)).isEqualTo(before);
        assertThat(bypass.terminate(Duration.ofSeconds(60))).isZero();
      } finally {
        if (bypass.process.isAlive()) {
          bypass.kill9AndRemoveItsCgroup();
        }
      }
    }
  }

  @Test
  void checkConnectReportsTheProxyHop() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1);
        TinyProxy proxy = new TinyProxy(dir.resolve("proxy"))) {
      Path config = withProxyKey(cp.agentConfig(""), proxy.url());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          Main.execute(
              new String[] {
                "check", "--profile", "edge", "--config", config.toString(), "--connect"
              },
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(code).as(text + err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(text)
          .contains("proxy: " + proxy.url() + " (HTTP CONNECT; from ingress.proxy)")
          .contains(
              "connect: ok (127.0.0.1:"
                  + cp.server.ingressAddress().getPort()
                  + " through proxy "
                  + proxy.url());
      assertThat(connects(proxy, cp.server.ingressAddress().getPort())).isNotEmpty();
    }
  }
}
