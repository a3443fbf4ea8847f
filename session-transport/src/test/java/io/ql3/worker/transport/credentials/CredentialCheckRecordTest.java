package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.MutableClock;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart with unchanged credential files skips the signature checks, and nothing else does: real
 * files, real keys and certificates, the provider's own load.
 */
class CredentialCheckRecordTest {
  @TempDir Path tmp;

  private TestPki.Issued ca;
  private TestPki.Issued client;
  private MutableClock clock;
  private CredentialDir dir;
  private Path recordFile;

  @BeforeEach
  void setUp() throws Exception {
    ca = TestPki.rootCa("ca");
    client = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    clock = new MutableClock(Instant.now());
    dir = new CredentialDir(tmp.resolve("creds")).write(client, ca, CredentialDir.TOKEN);
    Files.createDirectories(tmp.resolve("state"));
    recordFile = tmp.resolve("state").resolve(CredentialCheckRecord.FILE_NAME);
  }

  private CredentialProvider load() throws CredentialException {
    return CredentialProvider.load(
        dir.files(),
        Vectors.WORKER,
        clock,
        CredentialProvider.Settings.defaults(),
        CredentialCheckRecord.at(recordFile));
  }

  @Test
  void aRestartWithTheSameFilesSkipsTheSignatureChecks() throws Exception {
    CredentialProvider first = load();
    assertThat(first.signatureChecks()).isEqualTo(1);

    CredentialProvider second = load();
    assertThat(second.signatureChecks()).isZero();
    assertThat(second.tls().identity()).isEqualTo(Vectors.WORKER);
    assertThat(second.tls().leafFingerprint()).isEqualTo(first.tls().leafFingerprint());
  }

  @Test
  void aKeyThatNoLongerMatchesIsRefusedDespiteTheRecord() throws Exception {
    load();
    TestPki.Issued next = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
    Files.writeString(dir.files().certificateChain(), TestPki.chainPem(next)); // key not replaced

    assertThatThrownBy(this::load)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.KEY_MISMATCH));
  }

  @Test
  void theDigestBindsTheWorkerIdAndEveryFile() throws Exception {
    load();
    CredentialCheckRecord record = CredentialCheckRecord.at(recordFile);
    byte[] chain = Files.readAllBytes(dir.files().certificateChain());
    byte[] key = Files.readAllBytes(dir.files().privateKey());
    byte[] trust = Files.readAllBytes(dir.files().trustBundle());
    Instant now = clock.instant();

    assertThat(record.covers(CredentialCheckRecord.digest(Vectors.WORKER, chain, key, trust), now))
        .isTrue();
    assertThat(record.covers(CredentialCheckRecord.digest("edge-0002", chain, key, trust), now))
        .isFalse();
    for (byte[] file : new byte[][] {chain, key, trust}) {
      file[file.length - 1] ^= 1;
      assertThat(
              record.covers(CredentialCheckRecord.digest(Vectors.WORKER, chain, key, trust), now))
          .isFalse();
      file[file.length - 1] ^= 1;
    }
  }

  @Test
  void aDamagedOrForeignRecordMeansAFullCheckAndIsWrittenAgain() throws Exception {
    load();
    String good = Files.readString(recordFile);
    for (String bad :
        new String[] {
          "",
          good.substring(0, good.length() - 1), // no newline: torn
          good.substring(0, 40) + "\n",
          good.replace(" 1 ", " 2 "),
          good.replace("ql3w-credential-check", "something-else"),
          "x".repeat(300) + "\n",
        }) {
      Files.writeString(recordFile, bad);
      assertThat(load().signatureChecks()).as("record %s", bad).isEqualTo(1);
      assertThat(Files.readString(recordFile)).isEqualTo(good);
    }
  }

  @Test
  void aRecordThatIsNotARegularFileIsIgnoredWithoutReadingIt() throws Exception {
    Files.createSymbolicLink(recordFile, Path.of("/dev/zero")); // endless: must not be read
    assertThat(load().signatureChecks()).isEqualTo(1);
    Files.delete(recordFile);
    assertThat(new ProcessBuilder("mkfifo", recordFile.toString()).start().waitFor()).isZero();
    assertThat(load().signatureChecks()).isEqualTo(1); // a FIFO with no writer would block a read
  }

  @Test
  void theDigestCoversTheJdkAndItsCertificatePathConstraints() {
    assertThat(CredentialCheckRecord.rules())
        .contains(System.getProperty("java.runtime.version"))
        .contains(
            String.valueOf(java.security.Security.getProperty("jdk.certpath.disabledAlgorithms")));
  }

  @Test
  void theRecordHoldsOnlyInsideTheChainsValidity() {
    CredentialCheckRecord record = CredentialCheckRecord.at(recordFile);
    byte[] d = CredentialCheckRecord.digest("w", new byte[] {1}, new byte[] {2}, new byte[] {3});
    Instant from = Instant.parse("2026-01-01T00:00:00Z");
    Instant until = Instant.parse("2026-02-01T00:00:00Z");
    record.remember(d, from, until);

    assertThat(record.covers(d, from)).isTrue();
    assertThat(record.covers(d, until.minusSeconds(1))).isTrue();
    assertThat(record.covers(d, until)).isFalse();
    assertThat(record.covers(d, from.minusSeconds(1))).isFalse();
    d[0] ^= 1;
    assertThat(record.covers(d, from)).isFalse();
  }

  @Test
  void theRecordIsOneLineWithADigestOwnerOnly() throws Exception {
    load();
    String line = Files.readString(recordFile, StandardCharsets.US_ASCII);
    assertThat(line).matches("ql3w-credential-check 1 [0-9a-f]{64} [0-9]+ [0-9]+\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(recordFile)))
        .isEqualTo("rw-------");
    String key = Files.readString(dir.files().privateKey());
    assertThat(line).doesNotContain(key.lines().skip(1).findFirst().orElseThrow());

    // The window is where every certificate of the chain file is valid.
    long from = Long.MIN_VALUE;
    long until = Long.MAX_VALUE;
    for (X509Certificate c :
        PemReader.certificates(
            Files.readAllBytes(dir.files().certificateChain()), "certificate chain file")) {
      from = Math.max(from, c.getNotBefore().toInstant().getEpochSecond());
      until = Math.min(until, c.getNotAfter().toInstant().getEpochSecond());
    }
    assertThat(line.trim().split(" ")).endsWith(Long.toString(from), Long.toString(until));
  }

  @Test
  void aRecordThatCannotBeWrittenLeavesTheLoadIntact() throws Exception {
    Path file = tmp.resolve("not-a-directory");
    Files.writeString(file, "");
    CredentialCheckRecord unwritable = CredentialCheckRecord.at(file.resolve("x"));
    for (int i = 0; i < 2; i++) {
      CredentialProvider p =
          CredentialProvider.load(
              dir.files(),
              Vectors.WORKER,
              clock,
              CredentialProvider.Settings.defaults(),
              unwritable);
      assertThat(p.signatureChecks()).isEqualTo(1);
    }
  }

  @Test
  void theInstanceStateDirectoryIsTheLastOfSystemdsList() {
    assertThat(CredentialCheckRecord.inStateDirectory(null)).isSameAs(CredentialCheckRecord.none());
    assertThat(CredentialCheckRecord.inStateDirectory("")).isSameAs(CredentialCheckRecord.none());
    assertThat(
            CredentialCheckRecord.inStateDirectory("/var/lib/ql3-worker:/var/lib/ql3-worker/edge"))
        .usingRecursiveComparison()
        .isEqualTo(
            CredentialCheckRecord.at(
                Path.of("/var/lib/ql3-worker/edge", CredentialCheckRecord.FILE_NAME)));
  }

  @Test
  void withoutARecordEveryLoadChecksTheSignatures() throws Exception {
    for (int i = 0; i < 2; i++) {
      CredentialProvider p =
          CredentialProvider.load(
              dir.files(), Vectors.WORKER, clock, CredentialProvider.Settings.defaults());
      assertThat(p.signatureChecks()).isEqualTo(1);
    }
    assertThat(recordFile).doesNotExist();
  }

  @Test
  void aRotationIsCheckedInFullAndRecorded() throws Exception {
    CredentialProvider p = load();
    dir.rotateAtomically(ca.issue(TestPki.Spec.forClient(Vectors.WORKER)));
    clock.realNowPlus(Duration.ofSeconds(2));
    assertThat(p.tls().generation()).isEqualTo(2);
    assertThat(p.signatureChecks()).isEqualTo(2);
    assertThat(load().signatureChecks()).isZero(); // the restart after it
  }
}
