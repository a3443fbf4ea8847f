package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.MutableClock;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.Vectors;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File-level rules of the credential provider: lazy change detection, atomic installs, refusals.
 */
class CredentialProviderTest {
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  private TestPki.Issued ca;
  private TestPki.Issued client;
  private MutableClock clock;
  private CredentialDir dir;

  @BeforeEach
  void setUp() throws Exception {
    ca = TestPki.rootCa("ca");
    client = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    clock = new MutableClock(Instant.now());
    dir = new CredentialDir(tmp.resolve("creds")).write(client, ca, CredentialDir.TOKEN);
  }

  private CredentialProvider load() throws CredentialException {
    return CredentialProvider.load(
        dir.files(), Vectors.WORKER, clock, CredentialProvider.Settings.defaults());
  }

  @Test
  void unchangedFilesKeepTheSameInstalledSet() throws Exception {
    CredentialProvider p = load();
    CredentialSet first = p.tls();
    clock.realNowPlus(SETTLE);
    for (int i = 0; i < 100; i++) {
      assertThat(p.tls()).isSameAs(first);
    }
    assertThat(first.generation()).isEqualTo(1);
    assertThat(first.identity()).isEqualTo(Vectors.WORKER);
    assertThat(first.leafFingerprint()).isEqualTo(client.sha256());
    assertThat(first.toString()).doesNotContain("PRIVATE");
    assertThat(p.daysToExpiry()).isBetween(28L, 30L);
  }

  @Test
  void theInstalledSetDescribesItselfWithoutKeyMaterialAndNotAfterInUtc() throws Exception {
    CredentialSet set = load().tls();
    assertThat(set.toString())
        .contains("identity=" + Vectors.WORKER)
        .contains("notAfter=" + set.notAfter().truncatedTo(ChronoUnit.SECONDS) + "]")
        .doesNotContain("PRIVATE");
  }

  @Test
  void atomicRenameRotationIsInstalledOnceTheFilesHaveSettled() throws Exception {
    CredentialProvider p = load();
    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    dir.rotateAtomically(next);
    assertThat(p.tls().generation()).isEqualTo(1); // just renamed: not settled yet
    clock.realNowPlus(SETTLE);
    CredentialSet rotated = p.tls();
    assertThat(rotated.generation()).isEqualTo(2);
    assertThat(rotated.leafFingerprint()).isEqualTo(next.sha256());
  }

  /**
   * Files copied with the modification time of a host whose clock runs ahead (cp -p, rsync -t) are
   * installed once seen unchanged for the settle window, not when this clock reaches that time.
   */
  @Test
  void aRotationWhoseFilesCarryAFutureTimeIsInstalledOnceSeenUnchanged() throws Exception {
    CredentialProvider p = load();
    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    dir.rotateAtomically(next);
    java.nio.file.attribute.FileTime ahead =
        java.nio.file.attribute.FileTime.from(Instant.now().plus(Duration.ofHours(3)));
    for (Path f :
        List.of(
            dir.files().certificateChain(), dir.files().privateKey(), dir.files().trustBundle())) {
      java.nio.file.Files.setLastModifiedTime(f, ahead);
    }
    clock.realNowPlus(SETTLE);
    assertThat(p.tls().generation()).as("first seen: not settled yet").isEqualTo(1);
    clock.realNowPlus(SETTLE.multipliedBy(2));
    CredentialSet rotated = p.tls();
    assertThat(rotated.generation()).isEqualTo(2);
    assertThat(rotated.leafFingerprint()).isEqualTo(next.sha256());
  }

  @Test
  void dataSymlinkSwapIsFollowed() throws Exception {
    // Kubernetes-style projection: files are symlinks into ..data, which is swapped atomically.
    Path root = tmp.resolve("projected");
    Path v1 = root.resolve("..2026_v1");
    new CredentialDir(v1).write(client, ca, CredentialDir.TOKEN);
    Files.createSymbolicLink(root.resolve("..data"), Path.of("..2026_v1"));
    for (String name : new String[] {"client.pem", "client.key", "ca.pem", "token"}) {
      Files.createSymbolicLink(root.resolve(name), Path.of("..data", name));
    }
    dir = new CredentialDir(root);
    CredentialProvider p = load();
    assertThat(p.tls().leafFingerprint()).isEqualTo(client.sha256());

    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    new CredentialDir(root.resolve("..2026_v2")).write(next, ca, "tok_rotated-token-000000002");
    Files.createSymbolicLink(root.resolve("..data_tmp"), Path.of("..2026_v2"));
    Files.move(root.resolve("..data_tmp"), root.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    clock.realNowPlus(SETTLE);
    Credentials now = p.current();
    assertThat(now.tls().generation()).isEqualTo(2);
    assertThat(now.tls().leafFingerprint()).isEqualTo(next.sha256());
    assertThat(now.token().bearerValue()).isEqualTo("tok_rotated-token-000000002");
  }

  @Test
  void slowNonAtomicWriterIsNeverReadHalfWritten() throws Exception {
    CredentialProvider p = load();
    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    byte[] cert = TestPki.chainPem(next).getBytes(StandardCharsets.US_ASCII);
    byte[] key = TestPki.pkcs8Pem(next.key()).getBytes(StandardCharsets.US_ASCII);
    Path certFile = dir.files().certificateChain();
    Path keyFile = dir.files().privateKey();
    try (OutputStream c = Files.newOutputStream(certFile, StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream k = Files.newOutputStream(keyFile, StandardOpenOption.TRUNCATE_EXISTING)) {
      c.write(cert, 0, cert.length / 2);
      c.flush();
      // The writer is mid-way: the files are fresh, so they are not even read.
      assertThat(p.tls().generation()).isEqualTo(1);
      // Even if it stalls past the settle window, a half file fails validation: the old set stays.
      clock.realNowPlus(SETTLE);
      assertThat(p.tls().generation()).isEqualTo(1);
      c.write(cert, cert.length / 2, cert.length - cert.length / 2);
      c.flush();
      k.write(key, 0, key.length / 3);
      k.flush();
      clock.realNowPlus(SETTLE);
      assertThat(p.tls().generation()).isEqualTo(1); // new cert + partial key: refused
      k.write(key, key.length / 3, key.length - key.length / 3);
    }
    clock.realNowPlus(SETTLE);
    CredentialSet rotated = p.tls();
    assertThat(rotated.generation()).isEqualTo(2);
    assertThat(rotated.leafFingerprint()).isEqualTo(next.sha256());
  }

  @Test
  void mismatchedPairKeepsTheOldSet() throws Exception {
    CredentialProvider p = load();
    CredentialSet old = p.tls();
    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    Files.writeString(dir.files().certificateChain(), TestPki.chainPem(next)); // key not replaced
    clock.realNowPlus(SETTLE);
    assertThat(p.tls()).isSameAs(old);
    assertThat(p.tls()).isSameAs(old); // refused once, not re-read on every request
  }

  @Test
  void certificateForAnotherWorkerIsRefusedOnRotation() throws Exception {
    CredentialProvider p = load();
    TestPki.Issued other = ca.issue(TestPki.Spec.forClient("edge-0002"));
    dir.rotateAtomically(other);
    clock.realNowPlus(SETTLE);
    assertThat(p.tls().generation()).isEqualTo(1);
  }

  @Test
  void tokenRotationAppliesToTheNextRequest() throws Exception {
    CredentialProvider p = load();
    assertThat(p.current().token().bearerValue()).isEqualTo(CredentialDir.TOKEN);
    dir.rotateToken("tok_second-token-000000000");
    clock.realNowPlus(SETTLE);
    Credentials c = p.current();
    assertThat(c.token().bearerValue()).isEqualTo("tok_second-token-000000000");
    assertThat(c.tls().generation()).isEqualTo(1); // no TLS change, no reconnect
  }

  @Test
  void invalidTokenFileMeansNoRequestUntilFixed() throws Exception {
    CredentialProvider p = load();
    dir.rotateToken("short");
    clock.realNowPlus(SETTLE);
    Credentials c = p.current();
    assertThatThrownBy(c::requireToken)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.TOKEN_INVALID));
    assertThat(c.tokenError().getMessage()).doesNotContain("short");
    dir.rotateToken("tok_fixed-token-0000000000");
    clock.realNowPlus(SETTLE);
    assertThat(p.current().requireToken().bearerValue()).isEqualTo("tok_fixed-token-0000000000");
  }

  @Test
  void statResultIsReusedWithinTheCheckIntervalOnly() throws Exception {
    CredentialProvider p = load();
    clock.realNowPlus(SETTLE);
    Credentials first = p.current();
    dir.rotateToken("tok_within-interval-00000000");
    clock.set(
        clock.instant().plusMillis(100)); // inside the 250 ms interval: the cached check stands
    assertThat(p.current()).isSameAs(first);
    // The file is fresh (real mtime); once both the interval and the settle window passed it is
    // read.
    clock.realNowPlus(SETTLE);
    assertThat(p.current().token().bearerValue()).isEqualTo("tok_within-interval-00000000");
  }

  @Test
  void tokenRuleIsTheContractPattern() throws Exception {
    assertThat(Token.parse("  abcdefghijklmnop\n").bearerValue()).isEqualTo("abcdefghijklmnop");
    assertThat(Token.parse("A-Z._~+/=0123456789").toString()).doesNotContain("A-Z");
    for (String bad :
        new String[] {
          "abcdefghijklmno", "abcdefgh ijklmnopq", "abcdefghijklmnop\u00e9", "x".repeat(4097)
        }) {
      assertThatThrownBy(() -> Token.parse(bad)).isInstanceOf(CredentialException.class);
    }
    assertThat(Token.parse("x".repeat(4096)).bearerValue()).hasSize(4096);
  }

  @Test
  void keyOrTokenReadableByOthersIsRefused() throws Exception {
    Files.setPosixFilePermissions(
        dir.files().privateKey(), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.INSECURE_PERMISSIONS));
    Files.setPosixFilePermissions(
        dir.files().privateKey(), PosixFilePermissions.fromString("rw-r-----"));
    Files.setPosixFilePermissions(
        dir.files().token(), PosixFilePermissions.fromString("rw-rw-rw-"));
    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.INSECURE_PERMISSIONS));
    Files.setPosixFilePermissions(
        dir.files().token(), PosixFilePermissions.fromString("rw-r-----"));
    assertThat(load().tls().generation())
        .isEqualTo(1); // group-readable by the agent's own group: allowed
  }

  @Test
  void chainNotFromTheTrustBundleIsRefused() throws Exception {
    TestPki.Issued otherCa = TestPki.rootCa("other");
    new CredentialDir(dir.dir())
        .write(otherCa.issue(TestPki.Spec.forClient(Vectors.WORKER)), ca, CredentialDir.TOKEN);
    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.CHAIN_UNTRUSTED));
  }

  @Test
  void identityFallsBackToTheCnOnlyWithoutUriSans() throws Exception {
    new CredentialDir(dir.dir())
        .write(
            ca.issue(TestPki.Spec.forClient(Vectors.WORKER).uris(java.util.List.of())),
            ca,
            CredentialDir.TOKEN);
    assertThat(load().tls().identity()).isEqualTo(Vectors.WORKER);
    new CredentialDir(dir.dir())
        .write(
            ca.issue(
                TestPki.Spec.forClient(Vectors.WORKER)
                    .uris(java.util.List.of("spiffe://example/worker"))),
            ca,
            CredentialDir.TOKEN);
    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.IDENTITY_MISSING));
  }

  @Test
  void garbageKeyFileIsAClearPemError() throws Exception {
    TestPki.writeSecret(dir.files().privateKey(), "-----BEGIN PRIVATE KEY-----\nnot base64!\n");
    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.PEM_INVALID));
  }
}
