package io.ql3.worker.transport;

import io.netty.handler.ssl.ApplicationProtocolNames;
import io.ql3.worker.transport.credentials.CredentialSet;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * One immutable client {@link SSLContext} per credential generation, and the settings of every
 * client engine made from it. A new generation gets a new context (and so a new session cache): TLS
 * 1.3 resumption skips the key manager, so a shared context would keep presenting the old
 * certificate after a rotation. Confined to the event loop.
 *
 * <p>The JDK's context and engine are used as they are, not through Netty's {@code SslContext}: the
 * first use of its JDK implementation ({@code JdkSslContext}) builds a second, default context that
 * reads the JDK's whole CA store and lists every cipher suite, for settings this class makes in a
 * few lines (docs/perf/code-rules.md).
 */
final class TlsContexts {
  static final String TLS13 = "TLSv1.3";
  static final List<String> TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  private static final String[] PROTOCOLS = {TLS13};
  private static final String[] SUITES = TLS13_SUITES.toArray(new String[0]);

  /** ALPN, in order of preference: h2, then http/1.1. */
  private static final String[] ALPN = {
    ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1
  };

  // The sets used last (the current one and the one a rejected rotation falls back to), by
  // instance: a fallback set (older keys, newest trust) shares its generation with the older set.
  private final java.util.Map<CredentialSet, SSLContext> bySet =
      new java.util.LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<CredentialSet, SSLContext> eldest) {
          return size() > 3;
        }
      };

  /**
   * @throws SSLException when the JDK cannot make the context (reported as a TLS failure, like any
   *     other TLS problem, not as a network one)
   */
  SSLContext contextFor(CredentialSet set) throws SSLException {
    SSLContext ctx = bySet.get(set);
    if (ctx == null) {
      ctx = build(set);
      bySet.put(set, ctx);
    }
    return ctx;
  }

  static SSLContext build(CredentialSet set) throws SSLException {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS"); // each engine is pinned to TLS 1.3
      ctx.init(new KeyManager[] {set.keyManager()}, new TrustManager[] {set.trustManager()}, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new SSLException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  /**
   * A client engine for one connection: TLS 1.3 and {@link #TLS13_SUITES} only, the server's
   * certificate checked against {@code host} by the context's trust manager (name or IP address,
   * {@code ServerNames}; the JDK sends SNI for a dotted host name), ALPN offering h2 then http/1.1.
   */
  static SSLEngine newEngine(SSLContext ctx, String host, int port) {
    SSLEngine engine = ctx.createSSLEngine(host, port);
    engine.setUseClientMode(true);
    SSLParameters params = engine.getSSLParameters();
    params.setProtocols(PROTOCOLS);
    params.setCipherSuites(SUITES);
    // No JDK endpoint identification: the trust manager checks the name (CredentialSet).
    params.setEndpointIdentificationAlgorithm(null);
    params.setApplicationProtocols(ALPN);
    engine.setSSLParameters(params);
    return engine;
  }

  /**
   * The protocol ALPN chose after a handshake; http/1.1 when the server chose none. (The JDK
   * refuses the handshake if the server chooses a protocol that was not offered.)
   */
  static String negotiated(SSLEngine engine) {
    String chosen = engine.getApplicationProtocol();
    return chosen == null || chosen.isEmpty() ? ApplicationProtocolNames.HTTP_1_1 : chosen;
  }
}
