package io.ql3.worker.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.pki.PemFiles;
import io.ql3.worker.controlplane.pki.WorkerIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dev-pki: layout, file modes, identities and CA reuse. */
class DevPkiTest {
  @TempDir Path dir;

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void createsTheLayoutWithModesAndIdentities() throws Exception {
    DevPki pki = new DevPki(dir, Duration.ofDays(2));
    pki.create(List.of("edge-a"));
    assertThat(mode(dir.resolve("ca.crt"))).isEqualTo("rw-r--r--");
    assertThat(mode(dir.resolve("server.crt"))).isEqualTo("rw-r--r--");
    assertThat(mode(dir.resolve("server.key"))).isEqualTo("rw-------");
    Path w = dir.resolve("workers/edge-a");
    assertThat(mode(w.resolve("client.crt"))).isEqualTo("rw-r--r--");
    assertThat(mode(w.resolve("client.key"))).isEqualTo("rw-------");
    assertThat(mode(w.resolve("token"))).isEqualTo("rw-------");
    assertThat(Files.readString(w.resolve("token")).trim())
        .matches("^[A-Za-z0-9._~+/=-]{16,4096}$");

    X509Certificate ca = PemFiles.readCertificate(dir.resolve("ca.crt"));
    X509Certificate client = PemFiles.readCertificate(w.resolve("client.crt"));
    client.verify(ca.getPublicKey());
    assertThat(WorkerIdentity.of(client)).contains("edge-a");
    assertThat(client.getPublicKey().getAlgorithm()).isEqualTo("EC");
    assertThat(PemFiles.readPrivateKey(w.resolve("client.key")).getAlgorithm()).isEqualTo("EC");
    X509Certificate server = PemFiles.readCertificate(dir.resolve("server.crt"));
    server.verify(ca.getPublicKey());
    assertThat(server.getSubjectAlternativeNames())
        .extracting(l -> String.valueOf(l.get(1)))
        .contains("localhost", "127.0.0.1");
  }

  @Test
  void theServerCertificateNamesExtraAddressesForNamespacedTestHosts() throws Exception {
    DevPki pki = new DevPki(dir.resolve("ns"), Duration.ofDays(1), List.of("169.254.213.1"));
    pki.create(List.of("w1"));
    X509Certificate server = PemFiles.readCertificate(pki.serverCert());
    assertThat(server.getSubjectAlternativeNames())
        .extracting(l -> l.get(1).toString())
        .contains("localhost", "127.0.0.1", "169.254.213.1");
  }

  @Test
  void rerunReusesTheCaAndAddsWorkers() throws Exception {
    DevPki pki = new DevPki(dir, Duration.ofDays(2));
    pki.create(List.of("edge-a"));
    byte[] ca = Files.readAllBytes(dir.resolve("ca.crt"));
    String token = Files.readString(dir.resolve("workers/edge-a/token"));
    List<String> created = pki.create(List.of("edge-a", "edge-b"));
    assertThat(created).containsExactly(dir.resolve("workers/edge-b").toString());
    assertThat(Files.readAllBytes(dir.resolve("ca.crt"))).isEqualTo(ca);
    assertThat(Files.readString(dir.resolve("workers/edge-a/token"))).isEqualTo(token);
    PemFiles.readCertificate(dir.resolve("workers/edge-b/client.crt"))
        .verify(PemFiles.readCertificate(dir.resolve("ca.crt")).getPublicKey());
  }

  @Test
  void cnOnlyCertificateAndBadWorkerIds() throws Exception {
    DevPki pki = new DevPki(dir, Duration.ofDays(2));
    pki.create(List.of("edge-a"));
    pki.issueClient("plain", "edge-c", false);
    X509Certificate plain = PemFiles.readCertificate(dir.resolve("workers/plain/client.crt"));
    assertThat(plain.getSubjectAlternativeNames()).isNull();
    assertThat(WorkerIdentity.of(plain)).contains("edge-c");
    assertThatThrownBy(() -> pki.create(List.of("Edge_A")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
