package io.ql3.worker.transport;

import java.lang.System.Logger.Level;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's one-time TLS work, done on a short-lived thread ({@value #THREAD_NAME}) while the
 * agent's start-up reads its credentials and opens its journal, so that the first real handshake
 * does not pay for it: the TLS context implementation's set-up, a client engine with this
 * transport's settings ({@link TlsContexts#newEngine}) and its first ClientHello with a key share.
 * Under the interpreter that is ~100 ms the first handshake otherwise spends before its first byte
 * (docs/perf/edge.md, "Fifteenth pass").
 *
 * <p>Guarantee: it touches no credential, file or socket of the agent. Its context has no key and a
 * trust manager that refuses every certificate, its engine is never connected, and the ClientHello
 * it produces is dropped. Limits: the work is thrown away (its CPU, ~0.1 s interpreted, is paid
 * once per process), and a failure is only logged at debug level: the first handshake then pays for
 * the same work itself, as it would without this class.
 */
public final class TlsWarmUp {
  static final String THREAD_NAME = "ql3w-tls-warmup";

  private static final System.Logger LOG = System.getLogger(TlsWarmUp.class.getName());

  private TlsWarmUp() {}

  /** Starts the warm-up on its own daemon thread, which ends when the work is done. */
  public static Thread start() {
    Thread t = new Thread(TlsWarmUp::runQuietly, THREAD_NAME);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void runQuietly() {
    try {
      clientHello();
    } catch (GeneralSecurityException | SSLException | RuntimeException e) {
      LOG.log(Level.DEBUG, "TLS warm-up failed (the first handshake does this work): {0}", e);
    }
  }

  /** The warm-up itself, on the calling thread; returns the ClientHello record it dropped. */
  static byte[] clientHello() throws GeneralSecurityException, SSLException {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(new KeyManager[0], new TrustManager[] {RefusesEveryCertificate.INSTANCE}, null);
    SSLEngine engine = TlsContexts.newEngine(ctx, "localhost", 443);
    engine.beginHandshake();
    ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), hello);
    byte[] record = new byte[hello.flip().remaining()];
    hello.get(record);
    return record;
  }

  /**
   * The warm-up context's trust: none. Extended, as the agent's own trust manager is, so the JDK
   * takes it as it is (no wrapper of its own).
   */
  static final class RefusesEveryCertificate extends X509ExtendedTrustManager {
    static final RefusesEveryCertificate INSTANCE = new RefusesEveryCertificate();

    private RefusesEveryCertificate() {}

    private static CertificateException refused() {
      return new CertificateException("the TLS warm-up trusts no certificate");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw refused();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw refused();
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw refused();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw refused();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw refused();
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw refused();
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
