package io.ql3.worker.runtime.config;

import io.ql3.worker.transport.HttpProxy;
import io.ql3.worker.transport.TransportSettings;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which proxy the ingress connection goes through: {@code ingress.proxy} when the configuration
 * sets it (it wins, NO_PROXY does not apply), else {@code HTTPS_PROXY} / {@code https_proxy} from
 * the environment unless {@code NO_PROXY} / {@code no_proxy} covers the ingress host, else none.
 *
 * <p>NO_PROXY is a comma-separated list: {@code *} (every host), a host name or address (that host
 * exactly), or a domain ({@code example.com} or {@code .example.com}: that domain and its
 * subdomains). Ports in entries are ignored.
 *
 * @param proxy the proxy, or empty for a direct connection
 * @param source where it came from ({@code ingress.proxy}, {@code HTTPS_PROXY}, …, or why none)
 */
public record ProxySelection(Optional<HttpProxy> proxy, String source) {
  /**
   * The connection's settings on this route, the same for {@code run} and {@code check --connect}:
   * the configured {@code ingress.connect-timeout-ms}, this proxy, the transport's defaults for the
   * rest.
   */
  public TransportSettings transportSettings(AgentConfig.Ingress ingress, String userAgentVersion) {
    return TransportSettings.defaults(userAgentVersion)
        .withConnectTimeout(ingress.connectTimeout())
        .withProxy(proxy.orElse(null));
  }

  public static ProxySelection select(AgentConfig config, Map<String, String> env)
      throws ConfigException {
    AgentConfig.Ingress ingress = config.ingress();
    if (ingress.proxy().isPresent()) {
      return new ProxySelection(ingress.proxy(), "ingress.proxy");
    }
    String name = env.containsKey("HTTPS_PROXY") ? "HTTPS_PROXY" : "https_proxy";
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return new ProxySelection(Optional.empty(), "direct (no ingress.proxy, no HTTPS_PROXY)");
    }
    String noProxyName = env.containsKey("NO_PROXY") ? "NO_PROXY" : "no_proxy";
    if (bypassed(ingress.host(), env.get(noProxyName))) {
      return new ProxySelection(
          Optional.empty(), "direct (" + noProxyName + " covers " + ingress.host() + ")");
    }
    try {
      return new ProxySelection(Optional.of(HttpProxy.parse(value)), name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          config.source(), "", "environment variable " + name + ": " + e.getMessage());
    }
  }

  static boolean bypassed(String host, String noProxy) {
    if (noProxy == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    for (String raw : noProxy.split(",")) {
      String e = raw.strip().toLowerCase(Locale.ROOT);
      if (e.isEmpty()) {
        continue;
      }
      if (e.equals("*")) {
        return true;
      }
      int colon = e.lastIndexOf(':');
      if (colon > 0 && e.indexOf(':') == colon) {
        e = e.substring(0, colon); // host:port
      }
      if (e.startsWith(".")) {
        e = e.substring(1);
      }
      if (h.equals(e) || h.endsWith("." + e)) {
        return true;
      }
    }
    return false;
  }
}
