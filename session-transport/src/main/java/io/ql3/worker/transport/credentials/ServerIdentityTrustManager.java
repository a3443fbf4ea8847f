package io.ql3.worker.transport.credentials;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's PKIX trust manager over the trust bundle, followed by {@link ServerNames}' check of the
 * server's leaf against the host the engine was made for. The engines run without the JDK's
 * endpoint identification ({@code TlsContexts}), whose first use reads and parses the JDK's whole
 * CA store only to learn whether the chain ends at a public CA (docs/transport.md, "Server
 * identity").
 *
 * <p>Guarantee: a server chain is accepted only if the delegate accepts it and its leaf names the
 * peer host of the engine or socket. The two-argument form, which knows no host, accepts nothing.
 * It extends {@link X509ExtendedTrustManager} so that the JDK calls it as it is, without wrapping
 * it in checks of its own.
 */
final class ServerIdentityTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;

  ServerIdentityTrustManager(X509ExtendedTrustManager delegate) {
    this.delegate = delegate;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
    ServerNames.check(engine == null ? null : engine.getPeerHost(), chain[0]);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
    String host =
        socket instanceof SSLSocket ssl && ssl.getHandshakeSession() != null
            ? ssl.getHandshakeSession().getPeerHost()
            : null;
    ServerNames.check(host, chain[0]);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
    ServerNames.check(null, chain[0]);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
