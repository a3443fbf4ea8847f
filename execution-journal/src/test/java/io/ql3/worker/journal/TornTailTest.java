package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.JournalRecord.PullReserved;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal of N records, one group commit each; the last record is damaged in every possible way a
 * torn write can damage it. Recovery keeps exactly N-1 records and reports nothing else. The same
 * damage in a middle record is RecoveryRequired and the file is left untouched.
 */
class TornTailTest {
  private static final int N = 12;

  @TempDir Path dir;
  private Path segment;
  private byte[] original;
  private List<Frame> frames;
  private JournalFacts factsOfNMinus1;

  @BeforeEach
  void build() throws IOException {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      for (int i = 2; i <= N - 1; i++) {
        j.append(i % 3 == 0 ? offer("run-" + i) : new PullReserved("pull-" + i, 1 + i % 4));
      }
      factsOfNMinus1 = j.facts();
      j.append(offer("the-last-one"));
    }
    try (var s = Files.list(dir)) {
      segment =
          s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
    original = Files.readAllBytes(segment);
    frames = SegmentBytes.frames(original);
    assertThat(frames).hasSize(N);
    assertThat(frames).allMatch(Frame::last);
  }

  @Test
  void cutAtEveryOffsetInsideTheLastRecord() throws IOException {
    Frame last = frames.get(N - 1);
    for (int cut = last.position(); cut < last.end(); cut++) {
      // Preallocated file: a torn write leaves zeros after the cut.
      byte[] torn = original.clone();
      Arrays.fill(torn, cut, last.end(), (byte) 0);
      int dirty = cut;
      while (dirty > last.position() && original[dirty - 1] == 0) {
        dirty--;
      }
      // Reported: the non-zero bytes of the torn record that were zeroed again.
      assertRecoversToNMinus1(torn, dirty - last.position());
      // And a file whose length itself was cut.
      assertRecoversToNMinus1(Arrays.copyOf(original, cut), -1);
    }
  }

  @Test
  void flipEveryByteOfTheLastRecord() throws IOException {
    Frame last = frames.get(N - 1);
    for (int p = last.position(); p < last.end(); p++) {
      byte[] bad = original.clone();
      bad[p] ^= (byte) 0xFF;
      assertRecoversToNMinus1(bad, -1);
    }
  }

  @Test
  void flippedByteInAMiddleRecordIsRecoveryRequiredNeverSilentLoss() throws IOException {
    Frame middle = frames.get(N / 2);
    for (int p = middle.position(); p < middle.end(); p++) {
      byte[] bad = original.clone();
      bad[p] ^= (byte) 0x5A;
      Files.write(segment, bad);
      RecoveryRequired seen = JournalInspector.verify(dir, WORKER).recoveryRequired().orElseThrow();
      assertThat(seen.reason()).isEqualTo(RecoveryRequired.Reason.CORRUPT_RECORD);
      assertThat(seen.offset()).isEqualTo(middle.position());
      if ((p - middle.position()) % 8 != 0) {
        continue;
      }
      try (Journal j = Journal.open(config(dir))) {
        assertThat(j.status()).isEqualTo(Journal.Status.RECOVERY_REQUIRED);
        RecoveryRequired rr = j.facts().recoveryRequired().orElseThrow();
        assertThat(rr.reason()).isEqualTo(RecoveryRequired.Reason.CORRUPT_RECORD);
        assertThat(rr.offset()).isEqualTo(middle.position());
        assertThat(rr.file()).isEqualTo(segment.getFileName().toString());
      }
      assertThat(Files.readAllBytes(segment)).isEqualTo(bad); // nothing repaired
    }
  }

  @Test
  void recoveryThenAppendContinuesTheSequence() throws IOException {
    Frame last = frames.get(N - 1);
    byte[] torn = original.clone();
    Arrays.fill(torn, last.position() + 5, last.end(), (byte) 0);
    Files.write(segment, torn);
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.append(offer("again"))).isEqualTo(N);
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.facts().lastSeq()).isEqualTo(N);
      assertThat(j.report().truncatedBytes()).isZero();
    }
  }

  private int cases;

  /**
   * Every case runs the recovery read-only ({@link JournalInspector#verify}); every 8th case (and
   * the first) also does a real owned open that repairs the tail, then appends.
   */
  private void assertRecoversToNMinus1(byte[] bytes, long expectedTruncated) throws IOException {
    try (var s = Files.list(dir)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".log")).toList()) {
        Files.delete(p);
      }
    }
    Files.write(segment, bytes);
    JournalInspector.Verification v = JournalInspector.verify(dir, WORKER);
    assertThat(v.recoveryRequired()).isEmpty();
    assertThat(v.facts()).isEqualTo(factsOfNMinus1);
    assertThat(v.recordsReplayed()).isEqualTo(N - 1);
    assertThat(v.wouldDeclareUncertain()).isEmpty();
    assertThat(v.leftoverFiles()).isEmpty();
    if (expectedTruncated >= 0) {
      assertThat(v.tornTailBytes()).isEqualTo(expectedTruncated);
    }
    if (cases++ % 8 == 0) {
      assertOpenRecoversToNMinus1(bytes, expectedTruncated);
    }
  }

  private void assertOpenRecoversToNMinus1(byte[] bytes, long expectedTruncated)
      throws IOException {
    try (var s = Files.list(dir)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".log")).toList()) {
        Files.delete(p); // segments created by the previous case's recovery
      }
    }
    Files.write(segment, bytes);
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN);
      assertThat(j.facts()).isEqualTo(factsOfNMinus1);
      RecoveryReport r = j.report();
      assertThat(r.recoveryRequired()).isEmpty();
      assertThat(r.declaredUncertain()).isEmpty();
      assertThat(r.removedFiles()).isEmpty();
      assertThat(r.recordsReplayed()).isEqualTo(N - 1);
      if (expectedTruncated >= 0) {
        assertThat(r.truncatedBytes()).isEqualTo(expectedTruncated);
      }
      assertThat(j.append(offer("after-repair"))).isEqualTo(N);
    }
  }
}
