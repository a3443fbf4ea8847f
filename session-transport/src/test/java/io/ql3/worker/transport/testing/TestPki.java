package io.ql3.worker.transport.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test certificates made with BouncyCastle's builders on the JDK's providers (BC is never
 * registered).
 */
public final class TestPki {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime() & 0xffffffffL);

  private TestPki() {}

  /** A key pair and its certificate, plus the chain up to (not including) the root. */
  public record Issued(KeyPair keys, X509Certificate cert, List<X509Certificate> chain) {
    public PrivateKey key() {
      return keys.getPrivate();
    }

    public Issued issue(Spec spec) {
      return TestPki.issue(this, spec);
    }

    public String sha256() {
      try {
        return java.util.HexFormat.of()
            .formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** What to put in a certificate. */
  public record Spec(
      String cn,
      List<String> uris,
      List<String> dnsNames,
      List<String> ips,
      Instant notBefore,
      Instant notAfter,
      boolean ca,
      boolean clientAuth,
      boolean serverAuth) {
    public static Spec forClient(String workerId) {
      Instant now = Instant.now();
      return new Spec(
          workerId,
          List.of("ql3w://worker/" + workerId),
          List.of(),
          List.of(),
          now.minus(Duration.ofHours(1)),
          now.plus(Duration.ofDays(30)),
          false,
          true,
          false);
    }

    public static Spec forServer() {
      Instant now = Instant.now();
      return new Spec(
          "ingress",
          List.of(),
          List.of("localhost"),
          List.of("127.0.0.1"),
          now.minus(Duration.ofHours(1)),
          now.plus(Duration.ofDays(30)),
          false,
          false,
          true);
    }

    public Spec validity(Instant from, Instant to) {
      return new Spec(cn, uris, dnsNames, ips, from, to, ca, clientAuth, serverAuth);
    }

    public Spec names(List<String> dns, List<String> ipAddresses) {
      return new Spec(cn, uris, dns, ipAddresses, notBefore, notAfter, ca, clientAuth, serverAuth);
    }

    public Spec commonName(String name) {
      return new Spec(name, uris, dnsNames, ips, notBefore, notAfter, ca, clientAuth, serverAuth);
    }

    public Spec uris(List<String> u) {
      return new Spec(cn, u, dnsNames, ips, notBefore, notAfter, ca, clientAuth, serverAuth);
    }
  }

  public static KeyPair ecKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Issued rootCa(String cn) {
    Instant now = Instant.now();
    KeyPair keys = ecKeys();
    Spec spec =
        new Spec(
            cn,
            List.of(),
            List.of(),
            List.of(),
            now.minus(Duration.ofDays(1)),
            now.plus(Duration.ofDays(365)),
            true,
            false,
            false);
    X509Certificate cert = build(spec, keys, keys, new X500Name("CN=" + cn), null);
    return new Issued(keys, cert, List.of());
  }

  static Issued issue(Issued issuer, Spec spec) {
    KeyPair keys = ecKeys();
    return issueWithKeys(issuer, spec, keys);
  }

  public static Issued issueWithKeys(Issued issuer, Spec spec, KeyPair keys) {
    X509Certificate cert =
        build(
            spec,
            keys,
            issuer.keys(),
            new X500Name(issuer.cert().getSubjectX500Principal().getName()),
            issuer.cert());
    List<X509Certificate> chain = new ArrayList<>();
    chain.add(cert);
    if (!issuer.chain().isEmpty()) {
      chain.addAll(issuer.chain()); // intermediate chain
    }
    return new Issued(keys, cert, List.copyOf(chain));
  }

  private static X509Certificate build(
      Spec spec,
      KeyPair subjectKeys,
      KeyPair issuerKeys,
      X500Name issuer,
      X509Certificate issuerCert) {
    try {
      JcaX509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              issuer,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(spec.notBefore()),
              Date.from(spec.notAfter()),
              new X500Name("CN=" + spec.cn()),
              subjectKeys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(
          Extension.subjectKeyIdentifier,
          false,
          ext.createSubjectKeyIdentifier(subjectKeys.getPublic()));
      if (issuerCert != null) {
        b.addExtension(
            Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(issuerCert));
      }
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(spec.ca()));
      if (spec.ca()) {
        b.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        List<KeyPurposeId> purposes = new ArrayList<>();
        if (spec.clientAuth()) {
          purposes.add(KeyPurposeId.id_kp_clientAuth);
        }
        if (spec.serverAuth()) {
          purposes.add(KeyPurposeId.id_kp_serverAuth);
        }
        b.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)));
      }
      List<GeneralName> names = new ArrayList<>();
      spec.uris()
          .forEach(u -> names.add(new GeneralName(GeneralName.uniformResourceIdentifier, u)));
      spec.dnsNames().forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
      spec.ips().forEach(i -> names.add(new GeneralName(GeneralName.iPAddress, i)));
      if (!names.isEmpty()) {
        b.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      // No provider set: the JDK's own Signature implementation signs (BC stays unregistered).
      return new JcaX509CertificateConverter()
          .getCertificate(
              b.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String pem(Object... objects) {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      for (Object o : objects) {
        pw.writeObject(o);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return w.toString();
  }

  /** PKCS#8 "PRIVATE KEY" PEM. */
  public static String pkcs8Pem(PrivateKey key) {
    try {
      return pem(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null));
    } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String chainPem(Issued issued) {
    return pem(issued.chain().toArray());
  }

  /** Writes content to path with mode 0600 (secret files must not be readable by others). */
  public static void writeSecret(Path path, String content) throws IOException {
    Files.writeString(path, content, StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
  }
}
