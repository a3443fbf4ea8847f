package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import io.ql3.worker.transport.testing.TestPki;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** PEM decoding by the JDK alone: certificates, PKCS#8, and PKCS#1/SEC1 rewrapped as PKCS#8. */
class PemReaderTest {

  private static KeyPair keys(String algorithm) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
    if (algorithm.startsWith("RSA")) {
      g.initialize(2048);
    }
    return g.generateKeyPair();
  }

  private static byte[] armor(String label, byte[] der) {
    return ("-----BEGIN "
            + label
            + "-----\n"
            + Base64.getMimeEncoder().encodeToString(der)
            + "\n-----END "
            + label
            + "-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @ParameterizedTest
  @ValueSource(strings = {"EC", "RSA", "RSASSA-PSS", "Ed25519", "Ed448"})
  void pkcs8KeysOfEveryTlsAlgorithmDecodeToTheSameKey(String algorithm) throws Exception {
    PrivateKey original = keys(algorithm).getPrivate();
    PrivateKey decoded = PemReader.privateKey(armor("PRIVATE KEY", original.getEncoded()));
    assertThat(decoded.getAlgorithm()).isEqualTo(original.getAlgorithm());
    assertThat(decoded.getEncoded()).isEqualTo(original.getEncoded());
  }

  @TempDir Path tmp;

  /** Runs openssl in tmp and returns the named output file's bytes. */
  private byte[] openssl(String out, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("openssl %s: %s", String.join(" ", args), log).isZero();
    return Files.readAllBytes(tmp.resolve(out));
  }

  private static boolean opensslPresent() {
    try {
      Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  /** What openssl's classic commands write: SEC1 with an EC PARAMETERS block, and PKCS#1. */
  @Test
  void traditionalSec1AndPkcs1KeysDecodeLikeTheirPkcs8Form() throws Exception {
    assumeTrue(opensslPresent(), "openssl not installed");
    byte[] sec1 = openssl("ec.key", "ecparam", "-name", "prime256v1", "-genkey", "-out", "ec.key");
    assertThat(new String(sec1, StandardCharsets.US_ASCII))
        .contains("EC PARAMETERS")
        .contains("BEGIN EC PRIVATE KEY");
    byte[] rsa = openssl("rsa.key", "genrsa", "-traditional", "-out", "rsa.key", "2048");
    assertThat(new String(rsa, StandardCharsets.US_ASCII)).contains("BEGIN RSA PRIVATE KEY");
    for (String name : List.of("ec", "rsa")) {
      byte[] traditional = Files.readAllBytes(tmp.resolve(name + ".key"));
      byte[] pkcs8 =
          openssl(
              name + ".p8",
              "pkcs8",
              "-topk8",
              "-nocrypt",
              "-in",
              name + ".key",
              "-out",
              name + ".p8");
      PrivateKey viaWrapper = PemReader.privateKey(traditional);
      PrivateKey viaJdk = PemReader.privateKey(pkcs8);
      assertThat(viaWrapper.getAlgorithm()).isEqualTo(viaJdk.getAlgorithm());
      assertThat(keyValue(viaWrapper)).isEqualTo(keyValue(viaJdk));
    }
  }

  /** The private value, independent of optional fields an encoding may or may not carry. */
  private static java.math.BigInteger keyValue(PrivateKey key) {
    if (key instanceof java.security.interfaces.ECPrivateKey ec) {
      return ec.getS();
    }
    return ((java.security.interfaces.RSAPrivateKey) key).getPrivateExponent();
  }

  @Test
  void encryptedKeysAreRefusedInBothFormats() throws Exception {
    PrivateKey key = keys("EC").getPrivate();
    javax.crypto.Cipher cipher = javax.crypto.Cipher.getInstance("PBEWithSHA1AndDESede");
    cipher.init(
        javax.crypto.Cipher.ENCRYPT_MODE,
        javax.crypto.SecretKeyFactory.getInstance("PBEWithSHA1AndDESede")
            .generateSecret(new javax.crypto.spec.PBEKeySpec("secret".toCharArray())),
        new javax.crypto.spec.PBEParameterSpec(new byte[8], 1000));
    byte[] info =
        new javax.crypto.EncryptedPrivateKeyInfo(
                cipher.getParameters(), cipher.doFinal(key.getEncoded()))
            .getEncoded();
    String encryptedPkcs8 =
        new String(armor("ENCRYPTED PRIVATE KEY", info), StandardCharsets.US_ASCII);
    assertThat(encryptedPkcs8).contains("ENCRYPTED PRIVATE KEY");
    assertThatThrownBy(() -> PemReader.privateKey(ascii(encryptedPkcs8)))
        .isInstanceOfSatisfying(
            CredentialException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ENCRYPTED_KEY));

    java.io.StringWriter w = new java.io.StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(
          key,
          new JcePEMEncryptorBuilder("AES-128-CBC")
              .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
              .build("secret".toCharArray()));
    }
    assertThat(w.toString()).contains("Proc-Type: 4,ENCRYPTED");
    assertThatThrownBy(() -> PemReader.privateKey(ascii(w.toString())))
        .isInstanceOfSatisfying(
            CredentialException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ENCRYPTED_KEY));
  }

  /**
   * The SEC1 ECPrivateKey inside the JDK's own PKCS#8 encoding, which names no curve (the
   * PrivateKeyInfo's algorithm does): SEQUENCE { INTEGER 1, OCTET STRING d }.
   */
  private static byte[] sec1WithoutCurve(PrivateKey key) {
    byte[] p8 = key.getEncoded(); // SEQUENCE { version, AlgorithmIdentifier, OCTET STRING }, short
    int at = 2 + 3; // past the SEQUENCE header and INTEGER 0
    at += 2 + p8[at + 1]; // past the AlgorithmIdentifier
    assertThat(p8[at]).isEqualTo((byte) 0x04);
    byte[] sec1 = java.util.Arrays.copyOfRange(p8, at + 2, at + 2 + p8[at + 1]);
    assertThat(sec1[0]).isEqualTo((byte) 0x30);
    return sec1;
  }

  @Test
  void sec1KeyWithoutItsPublicKeyDecodes() throws Exception {
    assumeTrue(opensslPresent(), "openssl not installed");
    openssl("ec.key", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.key");
    byte[] full = openssl("full.key", "ec", "-in", "ec.key", "-out", "full.key");
    byte[] bare = openssl("bare.key", "ec", "-in", "ec.key", "-no_public", "-out", "bare.key");
    assertThat(new String(bare, StandardCharsets.US_ASCII))
        .contains("BEGIN EC PRIVATE KEY")
        .doesNotContain("EC PARAMETERS");
    assertThat(bare.length).isLessThan(full.length); // the same key, without its [1] publicKey
    assertThat(keyValue(PemReader.privateKey(bare)))
        .isEqualTo(keyValue(PemReader.privateKey(full)));
  }

  /**
   * Written by BouncyCastle (a test dependency only), so these need no openssl. The EC key is one
   * of BC's own, which names its curve in the SEC1 encoding (a JDK key's does not).
   */
  @ParameterizedTest
  @ValueSource(strings = {"EC", "RSA"})
  void traditionalKeysWrittenByAnotherLibraryDecodeToTheSameKey(String algorithm) throws Exception {
    KeyPairGenerator g =
        KeyPairGenerator.getInstance(
            algorithm, new org.bouncycastle.jce.provider.BouncyCastleProvider());
    if (algorithm.equals("EC")) {
      g.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
    } else {
      g.initialize(2048);
    }
    PrivateKey key = g.generateKeyPair().getPrivate();
    java.io.StringWriter w = new java.io.StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(key);
    }
    assertThat(w.toString()).contains("BEGIN " + algorithm + " PRIVATE KEY");
    PrivateKey decoded = PemReader.privateKey(ascii(w.toString()));
    assertThat(decoded.getAlgorithm()).isEqualTo(algorithm);
    assertThat(keyValue(decoded)).isEqualTo(keyValue(key));
  }

  @Test
  void sec1KeysWithoutACurveNameAreRefusedSayingWhy() throws Exception {
    byte[] sec1 = sec1WithoutCurve(keys("EC").getPrivate());
    assertThatThrownBy(() -> PemReader.privateKey(armor("EC PRIVATE KEY", sec1)))
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.PEM_INVALID);
              assertThat(e.getMessage()).contains("does not name its curve");
            });
    byte[] trailing = concat(sec1, new byte[] {0x05, 0x00});
    assertThatThrownBy(() -> PemReader.privateKey(armor("EC PRIVATE KEY", trailing)))
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.getMessage()).contains("SEC1 EC key structure is malformed"));

    assumeTrue(opensslPresent(), "openssl not installed");
    openssl("ec.key", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.key");
    byte[] explicit =
        openssl("x.key", "ec", "-in", "ec.key", "-param_enc", "explicit", "-out", "x.key");
    assertThatThrownBy(() -> PemReader.privateKey(explicit))
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.PEM_INVALID);
              assertThat(e.getMessage()).contains("explicit curve parameters");
            });
  }

  @Test
  void malformedKeyFilesAreClearPemErrorsWithoutKeyMaterial() throws Exception {
    PrivateKey key = keys("EC").getPrivate();
    byte[] one = armor("PRIVATE KEY", key.getEncoded());
    List<byte[]> bad =
        List.of(
            ascii("not a pem file at all\n"),
            concat(one, one), // two keys
            ascii("-----BEGIN PRIVATE KEY-----\nMIGH!!!notbase64\n-----END PRIVATE KEY-----\n"),
            ascii(
                "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getEncoder().encodeToString(key.getEncoded())
                    + "\n"),
            ascii("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"),
            armor(
                "PRIVATE KEY", new byte[] {0x30, 0x03, 0x02, 0x01, 0x00}), // no AlgorithmIdentifier
            armor(
                "PRIVATE KEY",
                new byte[] {0x30, (byte) 0x84, 0x7f, 0x7f, 0x7f, 0x7f}), // length beyond input
            armor(
                "PRIVATE KEY",
                new byte[] {
                  0x30, 0x0c, 0x02, 0x01, 0x00, 0x30, 0x07, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A
                }),
            armor("CERTIFICATE", new byte[] {0x30, 0x00}),
            armor("EC PRIVATE KEY", sec1WithoutCurve(key)), // the curve is unknown
            armor("EC PRIVATE KEY", new byte[] {0x30, 0x03, 0x02, 0x01, 0x01}), // no private key
            armor("RSA PRIVATE KEY", new byte[] {0x30, 0x03, 0x02, 0x01, 0x00}), // no modulus
            ascii(""));
    String secret = Base64.getEncoder().encodeToString(key.getEncoded()).substring(20, 40);
    for (byte[] pem : bad) {
      assertThatThrownBy(() -> PemReader.privateKey(pem))
          .as(new String(pem, StandardCharsets.US_ASCII))
          .isInstanceOfSatisfying(
              CredentialException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.PEM_INVALID);
                assertThat(e.getMessage()).doesNotContain(secret);
              });
    }
  }

  @Test
  void certificateFilesMayCarryTextAroundTheBlocks() throws Exception {
    TestPki.Issued ca = TestPki.rootCa("pem-test-ca");
    X509Certificate cert = ca.cert();
    String pem =
        "Certificate:\n    Data: (openssl x509 -text output)\n"
            + TestPki.pem(cert)
            + "\r\n# comment\n"
            + TestPki.pem(cert).replace("\n", "\r\n");
    List<X509Certificate> read = PemReader.certificates(ascii(pem), "trust bundle file");
    assertThat(read).containsExactly(cert, cert);
  }

  @Test
  void certificateFilesRefuseOtherBlocksAndEmptiness() throws Exception {
    KeyPair keys = keys("EC");
    TestPki.Issued ca = TestPki.rootCa("pem-test-ca");
    byte[] withKey =
        concat(ascii(TestPki.pem(ca.cert())), armor("PRIVATE KEY", keys.getPrivate().getEncoded()));
    for (byte[] pem :
        List.of(withKey, ascii("nothing here\n"), armor("CERTIFICATE", new byte[] {0x30, 0x00}))) {
      assertThatThrownBy(() -> PemReader.certificates(pem, "trust bundle file"))
          .isInstanceOfSatisfying(
              CredentialException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.PEM_INVALID);
                assertThat(e.getMessage()).contains("trust bundle file");
              });
    }
  }

  /**
   * Every key format and the certificates are decoded by the JDK alone: no BouncyCastle class is
   * loaded (the agent does not ship it). Proven in an isolated class loader that records what it
   * defines, which can see BC (a test dependency).
   */
  @Test
  void noKeyFormatLoadsABouncyCastleClass() throws Exception {
    PrivateKey key = keys("EC").getPrivate();
    byte[] pkcs8 = armor("PRIVATE KEY", key.getEncoded());
    byte[] certs = ascii(TestPki.pem(TestPki.rootCa("pem-test-ca").cert()));
    try (RecordingLoader loader = new RecordingLoader()) {
      Class<?> reader = Class.forName(PemReader.class.getName(), true, loader);
      Method privateKey = reader.getDeclaredMethod("privateKey", byte[].class);
      Method certificates = reader.getDeclaredMethod("certificates", byte[].class, String.class);
      privateKey.setAccessible(true);
      certificates.setAccessible(true);
      invoke(privateKey, pkcs8);
      invoke(certificates, certs, "certificate chain file");
      assertThat(loader.defined()).contains(PemReader.class.getName());
      assertThat(loader.defined()).filteredOn(n -> n.startsWith("org.bouncycastle.")).isEmpty();

      assumeTrue(opensslPresent(), "openssl not installed");
      invoke(
          privateKey,
          openssl("ec.key", "ecparam", "-name", "prime256v1", "-genkey", "-out", "ec.key"));
      invoke(privateKey, openssl("rsa.key", "genrsa", "-traditional", "-out", "rsa.key", "2048"));
      assertThat(loader.defined()).contains(LegacyPemKeys.class.getName());
      assertThat(loader.defined()).filteredOn(n -> n.startsWith("org.bouncycastle.")).isEmpty();
      assertThat(loader.loadClass("org.bouncycastle.openssl.PEMParser")).isNotNull();
      assertThat(loader.defined()).anyMatch(n -> n.startsWith("org.bouncycastle."));
    }
  }

  private static void invoke(Method m, Object... args) throws Exception {
    try {
      m.invoke(null, args);
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * Child-first loader over this module's classes and the BouncyCastle jars, recording definitions.
   */
  private static final class RecordingLoader extends URLClassLoader {
    private final List<String> defined = Collections.synchronizedList(new ArrayList<>());

    RecordingLoader() {
      super(
          new URL[] {
            location(PemReader.class),
            location(PEMParser.class),
            location(org.bouncycastle.asn1.ASN1Object.class),
            location(org.bouncycastle.util.Arrays.class),
            location(org.bouncycastle.asn1.pkcs.PrivateKeyInfo.class)
          },
          ClassLoader.getPlatformClassLoader());
    }

    private static URL location(Class<?> c) {
      return c.getProtectionDomain().getCodeSource().getLocation();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      Class<?> c = super.findClass(name);
      defined.add(name);
      return c;
    }

    List<String> defined() {
      return List.copyOf(defined);
    }
  }
}
