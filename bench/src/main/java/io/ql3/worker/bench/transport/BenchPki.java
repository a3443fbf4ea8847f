package io.ql3.worker.bench.transport;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * EC P-256 CA, server (127.0.0.1) and client (ql3w URI SAN) certificates for the transport
 * benchmarks.
 */
final class BenchPki {
  static final String WORKER = "edge-0001";
  static final String TOKEN = "tok_benchmark-token-000001";
  private static final AtomicLong SERIAL = new AtomicLong(1000);

  final KeyPair caKeys = keys();
  final X509Certificate ca = cert("CN=bench CA", caKeys, "CN=bench CA", caKeys, true, null);
  final KeyPair serverKeys = keys();
  final X509Certificate server =
      cert(
          "CN=ingress",
          serverKeys,
          "CN=bench CA",
          caKeys,
          false,
          new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
  final KeyPair clientKeys = keys();
  final X509Certificate client =
      cert(
          "CN=" + WORKER,
          clientKeys,
          "CN=bench CA",
          caKeys,
          false,
          new GeneralName(GeneralName.uniformResourceIdentifier, "ql3w://worker/" + WORKER));

  /** Writes client.pem, client.key (0600), ca.pem and token (0600) into dir. */
  void writeClientFiles(Path dir) throws Exception {
    Files.writeString(dir.resolve("client.pem"), pem(client), StandardCharsets.US_ASCII);
    Files.writeString(
        dir.resolve("client.key"), pem(new JcaPKCS8Generator(clientKeys.getPrivate(), null)));
    Files.setPosixFilePermissions(
        dir.resolve("client.key"), PosixFilePermissions.fromString("rw-------"));
    Files.writeString(dir.resolve("ca.pem"), pem(ca), StandardCharsets.US_ASCII);
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Files.setPosixFilePermissions(
        dir.resolve("token"), PosixFilePermissions.fromString("rw-------"));
  }

  private static KeyPair keys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate cert(
      String subject,
      KeyPair subjectKeys,
      String issuer,
      KeyPair issuerKeys,
      boolean ca,
      GeneralName san) {
    try {
      Instant now = Instant.now();
      JcaX509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              new X500Name(issuer),
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(30))),
              new X500Name(subject),
              subjectKeys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (san != null) {
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(san));
      }
      return new JcaX509CertificateConverter()
          .getCertificate(
              b.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object o) throws Exception {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(o);
    }
    return w.toString();
  }
}
