package io.ql3.worker.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.transport.HttpProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProxySelectionTest {
  private static AgentConfig config(String host, Optional<HttpProxy> proxy) {
    AgentConfig.Ingress ingress =
        new AgentConfig.Ingress(
            URI.create("https://" + host), host, 443, Duration.ofSeconds(1), proxy);
    return new AgentConfig(
        Path.of("/etc/ql3-worker/agent.toml"),
        AgentProfile.EDGE,
        "edge-0001",
        Map.of(),
        ingress,
        null,
        null,
        null,
        Duration.ofSeconds(1),
        Optional.empty(),
        Optional.empty(),
        AgentConfig.LogFormat.LOGFMT,
        io.ql3.worker.runtime.log.EventLog.Level.INFO);
  }

  @Test
  void theConfigurationKeyWinsOverTheEnvironment() throws Exception {
    ProxySelection s =
        ProxySelection.select(
            config("cc.example.com", Optional.of(HttpProxy.parse("http://p:3128"))),
            Map.of("HTTPS_PROXY", "http://other:8080", "NO_PROXY", "*"));
    assertThat(s.proxy()).contains(new HttpProxy("p", 3128));
    assertThat(s.source()).isEqualTo("ingress.proxy");
  }

  @Test
  void httpsProxyUnlessNoProxyCoversTheHost() throws Exception {
    AgentConfig c = config("ingress.cc.example.com", Optional.empty());
    assertThat(ProxySelection.select(c, Map.of("https_proxy", "http://p:3128")).proxy())
        .contains(new HttpProxy("p", 3128));
    assertThat(
            ProxySelection.select(
                    c, Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", "example.com"))
                .proxy())
        .isEmpty();
    assertThat(
            ProxySelection.select(
                    c, Map.of("HTTPS_PROXY", "http://p:3128", "no_proxy", ".cc.example.com"))
                .proxy())
        .isEmpty();
    assertThat(
            ProxySelection.select(
                    c, Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", "other.com, ample.com"))
                .proxy())
        .contains(new HttpProxy("p", 3128));
    assertThat(ProxySelection.select(c, Map.of()).proxy()).isEmpty();
  }

  @Test
  void aBadProxyUrlIsAConfigurationError() {
    AgentConfig c = config("cc.example.com", Optional.empty());
    assertThatThrownBy(() -> ProxySelection.select(c, Map.of("HTTPS_PROXY", "https://p:3128")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("HTTPS_PROXY")
        .hasMessageContaining("http://");
    assertThatThrownBy(() -> HttpProxy.parse("http://user:pw@p:3128"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(HttpProxy.parse("http://p").port()).isEqualTo(80);
  }

  @Test
  void theConnectionUsesTheConfiguredConnectTimeoutOnEitherRoute() throws Exception {
    AgentConfig direct = config("cc.example.com", Optional.empty());
    AgentConfig proxied = config("cc.example.com", Optional.of(HttpProxy.parse("http://p:3128")));
    for (AgentConfig c : java.util.List.of(direct, proxied)) {
      var settings = ProxySelection.select(c, Map.of()).transportSettings(c.ingress(), "1.0");
      assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
      assertThat(Optional.ofNullable(settings.proxy())).isEqualTo(c.ingress().proxy());
    }
  }

  @Test
  void aProxyWithCredentialsInTheEnvironmentIsRefusedWithoutEchoingThem() {
    assertThatThrownBy(
            () ->
                ProxySelection.select(
                    config("cc.example.com", Optional.empty()),
                    Map.of("HTTPS_PROXY", "http://user:s3cret@proxy:3128")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("HTTPS_PROXY")
        .hasMessageContaining("http://<credentials removed>@proxy:3128")
        .hasMessageNotContaining("s3cret");
  }
}
