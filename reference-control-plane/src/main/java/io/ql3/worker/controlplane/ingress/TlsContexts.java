package io.ql3.worker.controlplane.ingress;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.ql3.worker.controlplane.pki.PemFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * The ingress TLS context: TLS 1.3 only, JDK provider, client certificate required, trust = the
 * PKI's CA only.
 */
public final class TlsContexts {
  private TlsContexts() {}

  public static SslContext server(Path pkiDir, Alpn alpn) throws IOException {
    PrivateKey key = PemFiles.readPrivateKey(pkiDir.resolve("server.key"));
    List<X509Certificate> chain = PemFiles.readCertificates(pkiDir.resolve("server.crt"));
    List<X509Certificate> trust = PemFiles.readCertificates(pkiDir.resolve("ca.crt"));
    try {
      return SslContextBuilder.forServer(key, chain.toArray(new X509Certificate[0]))
          .sslProvider(SslProvider.JDK)
          .protocols("TLSv1.3")
          .trustManager(trust.toArray(new X509Certificate[0]))
          .clientAuth(ClientAuth.REQUIRE)
          .applicationProtocolConfig(
              new ApplicationProtocolConfig(
                  ApplicationProtocolConfig.Protocol.ALPN,
                  ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                  ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                  alpn.protocols()))
          .build();
    } catch (javax.net.ssl.SSLException e) {
      throw new IOException(
          "cannot build the server TLS context from " + pkiDir + ": " + e.getMessage(), e);
    }
  }
}
