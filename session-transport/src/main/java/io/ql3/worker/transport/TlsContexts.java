package io.ql3.worker.transport;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.ql3.worker.transport.credentials.CredentialSet;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * One immutable client SslContext per credential generation. A new generation gets a new context
 * (and so a new session cache): TLS 1.3 resumption skips the key manager, so a shared context would
 * keep presenting the old certificate after a rotation. Confined to the event loop.
 */
final class TlsContexts {
  static final String TLS13 = "TLSv1.3";
  static final List<String> TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  // The sets used last (the current one and the one a rejected rotation falls back to), by
  // instance: a fallback set (older keys, newest trust) shares its generation with the older set.
  private final java.util.Map<CredentialSet, SslContext> bySet =
      new java.util.LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<CredentialSet, SslContext> eldest) {
          return size() > 3;
        }
      };

  SslContext contextFor(CredentialSet set) throws SSLException {
    SslContext ctx = bySet.get(set);
    if (ctx == null) {
      ctx = build(set);
      bySet.put(set, ctx);
    }
    return ctx;
  }

  static SslContext build(CredentialSet set) throws SSLException {
    return SslContextBuilder.forClient()
        .sslProvider(SslProvider.JDK)
        .protocols(TLS13)
        .ciphers(TLS13_SUITES)
        .keyManager(set.keyManager())
        .trustManager(set.trustManager())
        // Netty enables this only for handlers created with the peer host and port, which we do.
        .endpointIdentificationAlgorithm("HTTPS")
        .applicationProtocolConfig(
            new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                ApplicationProtocolNames.HTTP_2,
                ApplicationProtocolNames.HTTP_1_1))
        .build();
  }
}
