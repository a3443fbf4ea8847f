package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentConfig.Credentials;
import io.ql3.worker.runtime.config.AgentConfig.Ingress;
import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import io.ql3.worker.transport.HttpProxy;
import io.ql3.worker.transport.UrlText;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads what the transport connects with: the {@code [ingress]} table (the ingress URL, the connect
 * timeout, the proxy) and the {@code [credentials]} table (the credential file paths, only
 * resolved, never read, and the expiry warning).
 *
 * <p>Errors ({@link ConfigException}): {@code ingress.url} missing, not a valid URL, not {@code
 * https://}, without a host, or with user info, a path, a query or a fragment; {@code
 * ingress.proxy} that {@link HttpProxy#parse} refuses; a credential path missing or empty; an
 * integer out of its bounds; a value of the wrong type.
 */
final class TransportReader {
  private TransportReader() {}

  /** The {@code [ingress]} table; the caller finishes it. */
  static Ingress ingress(ConfigTable t) throws ConfigException {
    String raw = t.requiredString("url");
    String shown = UrlText.withoutCredentials(raw);
    URI url;
    try {
      url = new URI(raw);
    } catch (URISyntaxException e) {
      throw t.error("url", "not a valid URL (got \"" + shown + "\"): " + UrlText.reason(e));
    }
    if (!"https".equals(url.getScheme())) {
      throw t.error("url", "must be an https:// URL (got \"" + shown + "\")");
    }
    if (url.getHost() == null || url.getHost().isEmpty()) {
      throw t.error("url", "has no host (got \"" + shown + "\")");
    }
    if (url.getRawUserInfo() != null
        || url.getRawQuery() != null
        || url.getRawFragment() != null
        || !(url.getRawPath() == null
            || url.getRawPath().isEmpty()
            || url.getRawPath().equals("/"))) {
      throw t.error(
          "url",
          "must be scheme://host[:port] only, without credentials: the agent builds every path"
              + " itself (got \""
              + shown
              + "\")");
    }
    String host = url.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = url.getPort() == -1 ? 443 : url.getPort();
    Duration connect =
        Duration.ofMillis(t.optionalLong("connect-timeout-ms", 10_000, new Bounds(100, 120_000)));
    Optional<HttpProxy> proxy = Optional.empty();
    Optional<String> proxyUrl = t.optionalString("proxy");
    if (proxyUrl.isPresent()) {
      try {
        proxy = Optional.of(HttpProxy.parse(proxyUrl.get()));
      } catch (IllegalArgumentException e) {
        throw t.error("proxy", e.getMessage());
      }
    }
    return new Ingress(url, host, port, connect, proxy);
  }

  /**
   * The {@code [credentials]} table, paths resolved against {@code base}; the caller finishes it.
   */
  static Credentials credentials(ConfigTable cred, Path base) throws ConfigException {
    return new Credentials(
        cred.requiredPath("certificate", base),
        cred.requiredPath("private-key", base),
        cred.requiredPath("trust", base),
        cred.requiredPath("token", base),
        (int) cred.optionalLong("expiry-warning-days", 7, new Bounds(1, 365)));
  }
}
