package io.ql3.worker.controlplane.pki;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A development PKI on disk: an EC P-256 CA, a server certificate for localhost/127.0.0.1/::1 and
 * one client certificate (URI SAN {@code ql3w://worker/ID}) plus bearer token per worker.
 *
 * <p>Layout: {@code DIR/ca.crt}, {@code DIR/ca.key}, {@code DIR/server.crt}, {@code
 * DIR/server.key}, {@code DIR/workers/ID/client.crt|client.key|token}. Keys and tokens 0600,
 * certificates 0644. Running it again on an existing directory reuses the CA and adds the missing
 * workers.
 */
public final class DevPki {
  public static final Pattern WORKER_ID = Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$");
  private static final String SIGNATURE = "SHA256withECDSA";

  private final Path dir;
  private final SecureRandom random = new SecureRandom();
  private final Duration validity;
  private final List<String> extraServerAddresses;

  public DevPki(Path dir, Duration validity) {
    this(dir, validity, List.of());
  }

  /**
   * @param extraServerAddresses IP addresses the server certificate names besides 127.0.0.1 and ::1
   *     (a test host in a network namespace, e.g. the soak harness's link-local veth address)
   */
  public DevPki(Path dir, Duration validity, List<String> extraServerAddresses) {
    this.dir = dir;
    this.validity = validity;
    this.extraServerAddresses = List.copyOf(extraServerAddresses);
  }

  public Path dir() {
    return dir;
  }

  public Path caCert() {
    return dir.resolve("ca.crt");
  }

  public Path serverCert() {
    return dir.resolve("server.crt");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }

  public Path workerDir(String workerId) {
    return dir.resolve("workers").resolve(workerId);
  }

  /**
   * Creates whatever is missing: CA, server certificate, and each worker's certificate and token.
   */
  public List<String> create(List<String> workerIds) throws IOException {
    for (String id : workerIds) {
      requireWorkerId(id);
    }
    List<String> created = new ArrayList<>();
    Path caKeyFile = dir.resolve("ca.key");
    KeyPair ca;
    X509Certificate caCert;
    if (Files.exists(caCert()) && Files.exists(caKeyFile)) {
      caCert = PemFiles.readCertificate(caCert());
      PrivateKey caKey = PemFiles.readPrivateKey(caKeyFile);
      ca = new KeyPair(caCert.getPublicKey(), caKey);
    } else {
      ca = newKeyPair();
      caCert =
          issue(new X500Principal("CN=ql3 dev CA"), ca.getPublic(), null, ca, true, null, null);
      writeKey(caKeyFile, ca.getPrivate());
      writeCert(caCert(), caCert);
      created.add(caCert().toString());
    }
    if (!Files.exists(serverCert()) || !Files.exists(serverKey())) {
      KeyPair server = newKeyPair();
      List<GeneralName> san =
          new ArrayList<>(
              List.of(
                  new GeneralName(GeneralName.dNSName, "localhost"),
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.iPAddress, "::1")));
      for (String ip : extraServerAddresses) {
        san.add(new GeneralName(GeneralName.iPAddress, ip));
      }
      GeneralNames names = new GeneralNames(san.toArray(new GeneralName[0]));
      X509Certificate cert =
          issue(
              new X500Principal("CN=localhost"),
              server.getPublic(),
              caCert,
              ca,
              false,
              names,
              KeyPurposeId.id_kp_serverAuth);
      writeKey(serverKey(), server.getPrivate());
      writeCert(serverCert(), cert);
      created.add(serverCert().toString());
    }
    for (String id : workerIds) {
      Path wd = workerDir(id);
      if (Files.exists(wd.resolve("client.crt"))
          && Files.exists(wd.resolve("client.key"))
          && Files.exists(wd.resolve("token"))) {
        continue;
      }
      issueClient(id, id, true, caCert, ca);
      writeToken(id, newToken());
      created.add(wd.toString());
    }
    return created;
  }

  /**
   * Issues (or replaces) the client certificate of {@code dirName}. {@code identity} is the worker
   * id the certificate proves; {@code uriSan} false gives a CN-only certificate (the contract's
   * fallback).
   */
  public void issueClient(String dirName, String identity, boolean uriSan) throws IOException {
    X509Certificate caCert = PemFiles.readCertificate(caCert());
    PrivateKey caKey = PemFiles.readPrivateKey(dir.resolve("ca.key"));
    issueClient(dirName, identity, uriSan, caCert, new KeyPair(caCert.getPublicKey(), caKey));
  }

  private void issueClient(
      String dirName, String identity, boolean uriSan, X509Certificate caCert, KeyPair ca)
      throws IOException {
    KeyPair client = newKeyPair();
    GeneralNames names =
        uriSan
            ? new GeneralNames(
                new GeneralName(
                    GeneralName.uniformResourceIdentifier, WorkerIdentity.URI_PREFIX + identity))
            : null;
    X509Certificate cert =
        issue(
            new X500Principal("CN=" + identity),
            client.getPublic(),
            caCert,
            ca,
            false,
            names,
            KeyPurposeId.id_kp_clientAuth);
    Path wd = workerDir(dirName);
    writeKey(wd.resolve("client.key"), client.getPrivate());
    writeCert(wd.resolve("client.crt"), cert);
  }

  /** Replaces the worker's token file atomically (rotation). */
  public void writeToken(String workerId, String token) throws IOException {
    PemFiles.writeAtomically(
        workerDir(workerId).resolve("token"),
        (token + "\n").getBytes(StandardCharsets.US_ASCII),
        PemFiles.KEY_MODE);
  }

  /** 32 random bytes, base64url without padding: 43 characters of the contract's token alphabet. */
  public String newToken() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static void requireWorkerId(String id) {
    if (!WORKER_ID.matcher(id).matches()) {
      throw new IllegalArgumentException("not a contract workerId: '" + id + "'");
    }
  }

  private KeyPair newKeyPair() throws IOException {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), random);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IOException("EC P-256 key generation failed", e);
    }
  }

  private X509Certificate issue(
      X500Principal subject,
      PublicKey key,
      X509Certificate issuer,
      KeyPair signer,
      boolean isCa,
      GeneralNames names,
      KeyPurposeId purpose)
      throws IOException {
    Instant now = Instant.now();
    X500Principal issuerName = issuer == null ? subject : issuer.getSubjectX500Principal();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuerName,
            new BigInteger(64, random).add(BigInteger.ONE),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(validity)),
            subject,
            key);
    try {
      JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(key));
      if (isCa) {
        builder.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        builder.addExtension(
            Extension.authorityKeyIdentifier, false, utils.createAuthorityKeyIdentifier(issuer));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
      if (names != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, names);
      }
      ContentSigner contentSigner =
          new JcaContentSignerBuilder(SIGNATURE).build(signer.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
    } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
      throw new IOException("certificate issuance failed: " + e.getMessage(), e);
    }
  }

  private static void writeKey(Path file, PrivateKey key) throws IOException {
    PemFiles.writeAtomically(
        file,
        PemFiles.toPem(new JcaPKCS8Generator(key, null)).getBytes(StandardCharsets.US_ASCII),
        PemFiles.KEY_MODE);
  }

  private static void writeCert(Path file, X509Certificate cert) throws IOException {
    PemFiles.writeAtomically(
        file, PemFiles.toPem(cert).getBytes(StandardCharsets.US_ASCII), PemFiles.CERT_MODE);
  }
}
