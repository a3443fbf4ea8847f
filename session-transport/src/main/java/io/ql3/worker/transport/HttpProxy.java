package io.ql3.worker.transport;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * An HTTP proxy that tunnels the ingress connection with {@code CONNECT host:port}: TLS (and the
 * client certificate) still run end to end between the agent and the ingress, on one connection.
 */
public record HttpProxy(String host, int port) {
  public HttpProxy {
    if (host == null || host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException("invalid proxy " + host + ":" + port);
    }
  }

  /**
   * {@code http://host:port} (the form of {@code ingress.proxy} and {@code HTTPS_PROXY}); a missing
   * port is 80. No credentials, path or query: nothing else is sent to the proxy.
   */
  public static HttpProxy parse(String url) {
    URI u;
    String shown = UrlText.withoutCredentials(url);
    try {
      u = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "not a valid proxy URL (got \"" + shown + "\"): " + UrlText.reason(e));
    }
    if (!"http".equals(u.getScheme())) {
      throw new IllegalArgumentException(
          "must be an http:// proxy URL (got \""
              + shown
              + "\"): the agent tunnels TLS through CONNECT");
    }
    if (u.getHost() == null || u.getHost().isEmpty()) {
      throw new IllegalArgumentException("has no host (got \"" + shown + "\")");
    }
    if (u.getRawUserInfo() != null
        || u.getRawQuery() != null
        || u.getRawFragment() != null
        || !(u.getRawPath() == null || u.getRawPath().isEmpty() || u.getRawPath().equals("/"))) {
      throw new IllegalArgumentException(
          "must be http://host[:port] only, without credentials (got \"" + shown + "\")");
    }
    String h = u.getHost();
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return new HttpProxy(h, u.getPort() == -1 ? 80 : u.getPort());
  }

  @Override
  public String toString() {
    return "http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
