package io.ql3.worker.transport.testing;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's PKIX trust manager for one client CA, counting the client chains it is asked to verify.
 * A server verifies a client chain only in a full handshake (TLS 1.3 sends no CertificateRequest in
 * a resumed one), so the count is the number of full handshakes, whatever the JDK does with session
 * ids or creation times.
 */
final class CountingTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;
  private final AtomicInteger clientChecks;

  private CountingTrustManager(X509ExtendedTrustManager delegate, AtomicInteger clientChecks) {
    this.delegate = delegate;
    this.clientChecks = clientChecks;
  }

  static CountingTrustManager of(X509Certificate ca, AtomicInteger clientChecks) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("client-ca", ca);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
      tmf.init(store);
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return new CountingTrustManager(x, clientChecks);
        }
      }
      throw new IllegalStateException("no X509ExtendedTrustManager");
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    clientChecks.incrementAndGet();
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    clientChecks.incrementAndGet();
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    clientChecks.incrementAndGet();
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
