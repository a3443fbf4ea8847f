package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.transport.testing.TestPki;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The start-up's TLS warm-up: the transport's own engine settings, no trust, its own thread. */
class TlsWarmUpTest {
  @Test
  void itsClientHelloOffersExactlyTheTransportsTls13SuitesAndAlpn() throws Exception {
    byte[] hello = TlsWarmUp.clientHello();
    ByteBuffer b = ByteBuffer.wrap(hello);
    assertThat(b.get()).as("record type handshake").isEqualTo((byte) 22);
    b.position(5);
    assertThat(b.get()).as("handshake type ClientHello").isEqualTo((byte) 1);
    b.position(b.position() + 3 + 2 + 32); // length, legacy version, random
    int sessionIdLength = b.get() & 0xff;
    b.position(b.position() + sessionIdLength); // legacy session id
    int suitesLength = b.getShort() & 0xffff;
    List<Integer> suites = new ArrayList<>();
    for (int i = 0; i < suitesLength / 2; i++) {
      suites.add(b.getShort() & 0xffff);
    }
    // TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256 (RFC 8446 B.4)
    assertThat(suites).containsExactly(0x1301, 0x1302, 0x1303);
    assertThat(new String(hello, StandardCharsets.ISO_8859_1))
        .as("ALPN offers h2 then http/1.1")
        .contains("\u0002h2\u0008http/1.1");
  }

  @Test
  void itsContextTrustsNoCertificate() {
    TestPki.Issued ca = TestPki.rootCa("warm-up test CA");
    X509Certificate[] chain = {ca.issue(TestPki.Spec.forServer()).cert(), ca.cert()};
    assertThatThrownBy(
            () ->
                TlsWarmUp.RefusesEveryCertificate.INSTANCE.checkServerTrusted(chain, "ECDHE_ECDSA"))
        .isInstanceOf(CertificateException.class);
    assertThatThrownBy(
            () ->
                TlsWarmUp.RefusesEveryCertificate.INSTANCE.checkServerTrusted(
                    chain, "ECDHE_ECDSA", (javax.net.ssl.SSLEngine) null))
        .isInstanceOf(CertificateException.class);
    assertThatThrownBy(
            () -> TlsWarmUp.RefusesEveryCertificate.INSTANCE.checkClientTrusted(chain, "ECDSA"))
        .isInstanceOf(CertificateException.class);
    assertThat(TlsWarmUp.RefusesEveryCertificate.INSTANCE.getAcceptedIssuers()).isEmpty();
  }

  @Test
  @Timeout(60)
  void itRunsOnANamedDaemonThreadThatEnds() throws Exception {
    Thread t = TlsWarmUp.start();
    assertThat(t.getName()).isEqualTo("ql3w-tls-warmup");
    assertThat(t.isDaemon()).isTrue();
    t.join();
    assertThat(t.isAlive()).isFalse();
  }
}
