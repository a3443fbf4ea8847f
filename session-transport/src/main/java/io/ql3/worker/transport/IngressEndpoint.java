package io.ql3.worker.transport;

import java.util.Objects;

/**
 * The configured ingress: a host name or IP literal and a port. The server certificate is verified
 * against exactly this name or address.
 */
public record IngressEndpoint(String host, int port) {
  public IngressEndpoint {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException("invalid ingress endpoint " + host + ":" + port);
    }
  }

  /** The {@code host} / {@code :authority} value. */
  String authority() {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return port == 443 ? h : h + ":" + port;
  }
}
