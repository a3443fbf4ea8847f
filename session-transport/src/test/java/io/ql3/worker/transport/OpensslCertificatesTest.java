package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.MutableClock;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.io.FileReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials made by the `openssl` command line: PKCS#1 RSA and SEC1 EC keys, an encrypted key.
 */
class OpensslCertificatesTest {
  @TempDir Path tmp;

  private void openssl(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("openssl %s: %s", String.join(" ", args), out).isZero();
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

  private void makeCa() throws Exception {
    openssl(
        "ecparam", "-name", "prime256v1", "-genkey", "-out", "ca.key"); // SEC1 with EC PARAMETERS
    openssl(
        "req",
        "-x509",
        "-new",
        "-key",
        "ca.key",
        "-subj",
        "/CN=openssl test CA",
        "-days",
        "30",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-out",
        "ca.pem");
    Files.writeString(
        tmp.resolve("client.ext"),
        "subjectAltName=URI:ql3w://worker/"
            + Vectors.WORKER
            + "\n"
            + "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n");
  }

  private void signClient(String key, String cert) throws Exception {
    openssl("req", "-new", "-key", key, "-subj", "/CN=" + Vectors.WORKER, "-out", cert + ".csr");
    openssl(
        "x509",
        "-req",
        "-in",
        cert + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "10",
        "-extfile",
        "client.ext",
        "-out",
        cert);
  }

  private CredentialFiles files(String cert, String key) throws Exception {
    Files.setPosixFilePermissions(tmp.resolve(key), PosixFilePermissions.fromString("rw-------"));
    TestPki.writeSecret(tmp.resolve("token"), CredentialDir.TOKEN);
    return new CredentialFiles(
        tmp.resolve(cert), tmp.resolve(key), tmp.resolve("ca.pem"), tmp.resolve("token"));
  }

  private TestPki.Issued opensslCa() throws Exception {
    X509Certificate cert;
    try (var in = Files.newInputStream(tmp.resolve("ca.pem"))) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    KeyPair keys = null;
    try (PEMParser p = new PEMParser(new FileReader(tmp.resolve("ca.key").toFile()))) {
      Object o;
      while ((o = p.readObject()) != null) {
        if (o instanceof PEMKeyPair kp) {
          keys = new JcaPEMKeyConverter().getKeyPair(kp);
        }
      }
    }
    return new TestPki.Issued(keys, cert, List.of());
  }

  @Test
  void pkcs1RsaClientFromOpensslCompletesAnMtlsExchange() throws Exception {
    assumeTrue(opensslPresent(), "openssl command not installed");
    makeCa();
    openssl(
        "genrsa", "-traditional", "-out", "rsa.key", "2048"); // "BEGIN RSA PRIVATE KEY" (PKCS#1)
    assertThat(Files.readString(tmp.resolve("rsa.key"))).contains("BEGIN RSA PRIVATE KEY");
    signClient("rsa.key", "rsa.pem");
    CredentialProvider provider =
        CredentialProvider.load(
            files("rsa.pem", "rsa.key"),
            Vectors.WORKER,
            new MutableClock(Instant.now()),
            CredentialProvider.Settings.defaults());
    TestPki.Issued ca = opensslCa();
    try (TestServer server =
            TestServer.builder()
                .certificate(ca.issue(TestPki.Spec.forServer()))
                .clientCa(ca.cert())
                .responder(Fixture::vectorAnswer)
                .start();
        IngressClient client =
            IngressClient.open(
                new IngressEndpoint("127.0.0.1", server.port()),
                WorkerId.of(Vectors.WORKER),
                provider,
                Fixture.settings())) {
      IngressResult<?> r =
          client
              .heartbeat(
                  new SessionId(Vectors.SESSION),
                  HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
              .get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(server.clientCertificates()).containsExactly(provider.tls().leafFingerprint());
    }
  }

  @Test
  void sec1EcKeyWithParametersBlockLoadsAndEncryptedKeyIsRefusedClearly() throws Exception {
    assumeTrue(opensslPresent(), "openssl command not installed");
    makeCa();
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", "ec.key");
    assertThat(Files.readString(tmp.resolve("ec.key")))
        .contains("BEGIN EC PARAMETERS")
        .contains("BEGIN EC PRIVATE KEY");
    signClient("ec.key", "ec.pem");
    CredentialProvider provider =
        CredentialProvider.load(
            files("ec.pem", "ec.key"),
            Vectors.WORKER,
            new MutableClock(Instant.now()),
            CredentialProvider.Settings.defaults());
    assertThat(provider.tls().identity()).isEqualTo(Vectors.WORKER);

    openssl(
        "pkcs8",
        "-topk8",
        "-in",
        "ec.key",
        "-v2",
        "aes-256-cbc",
        "-passout",
        "pass:secret",
        "-out",
        "enc.key");
    assertThat(Files.readString(tmp.resolve("enc.key"))).contains("BEGIN ENCRYPTED PRIVATE KEY");
    assertThatThrownBy(
            () ->
                CredentialProvider.load(
                    files("ec.pem", "enc.key"),
                    Vectors.WORKER,
                    new MutableClock(Instant.now()),
                    CredentialProvider.Settings.defaults()))
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.ENCRYPTED_KEY));
  }
}
