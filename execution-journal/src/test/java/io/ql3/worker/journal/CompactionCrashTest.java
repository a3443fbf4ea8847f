package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.JournalRecord.PullReserved;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A crash at every step of compaction, a damaged snapshot, a half-created segment. */
class CompactionCrashTest {
  @TempDir Path dir;

  static JournalConfig config(Path dir) {
    return JournalConfig.of(dir, WORKER)
        .withSegmentBytes(256 * 1024)
        .withCompactAfterSegments(100)
        .withCompletionWindow(64);
  }

  /** Builds a journal spanning several segments with runs in every phase; returns its facts. */
  private JournalFacts build() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(new PullReserved("p-open", 2));
      fullRunsAsync(j, "old-", 1500);
      j.append(offer("accepted"));
      j.append(offer("started"));
      j.append(started("started"));
      j.append(offer("result"));
      j.append(failed("result"));
    }
    try (Journal j = Journal.open(config(dir))) { // declares "started" uncertain, once
      assertThat(j.report().declaredUncertain()).hasSize(1);
      return j.facts();
    }
  }

  private JournalFacts reopenFacts() {
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).as("%s", j.report()).isEqualTo(Journal.Status.OPEN);
      assertThat(j.report().declaredUncertain()).isEmpty();
      return j.facts();
    }
  }

  private List<String> files() throws IOException {
    try (var s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @EnumSource(CompactionPoint.class)
  void killAtEveryCompactionStepRecoversTheSameState(CompactionPoint point) throws Exception {
    JournalFacts before = build();
    assertThat(files().stream().filter(n -> n.endsWith(".log")).count()).isGreaterThan(1);
    ChildJvm child = ChildJvm.start(CompactionChild.class, dir.toString(), point.name());
    assertThat(child.process.waitFor()).isEqualTo(99);
    assertThat(reopenFacts()).isEqualTo(before);
    assertThat(reopenFacts()).isEqualTo(before); // idempotent
    // And the journal keeps working: a new compaction and appends.
    try (Journal j = Journal.open(config(dir))) {
      j.compactNow();
      j.append(offer("after"));
    }
    assertThat(reopenFacts().accepted())
        .extracting(r -> r.offer().runId())
        .containsExactly("accepted", "after");
  }

  @Test
  void damagedNewestSnapshotFallsBackToTheLogStillPresent() throws Exception {
    JournalFacts before = build();
    ChildJvm child =
        ChildJvm.start(
            CompactionChild.class, dir.toString(), CompactionPoint.SNAPSHOT_DIR_SYNCED.name());
    assertThat(child.process.waitFor()).isEqualTo(99);
    Path snap =
        dir.resolve(files().stream().filter(n -> n.endsWith(".snap")).findFirst().orElseThrow());
    byte[] b = Files.readAllBytes(snap);
    b[b.length / 2] ^= 0x10;
    Files.write(snap, b);
    assertThat(reopenFacts()).isEqualTo(before);
    assertThat(files()).noneMatch(n -> n.endsWith(".snap")); // the damaged snapshot was dropped
  }

  @Test
  void damagedSnapshotWhoseLogIsGoneIsRecoveryRequired() throws Exception {
    build();
    try (Journal j = Journal.open(config(dir))) {
      j.compactNow();
    }
    Path snap =
        dir.resolve(files().stream().filter(n -> n.endsWith(".snap")).findFirst().orElseThrow());
    byte[] b = Files.readAllBytes(snap);
    b[200] ^= 0x01;
    Files.write(snap, b);
    List<String> filesBefore = files();
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.RECOVERY_REQUIRED);
      assertThat(j.report().recoveryRequired().orElseThrow().reason())
          .isEqualTo(RecoveryRequired.Reason.CORRUPT_SNAPSHOT);
    }
    assertThat(files()).isEqualTo(filesBefore);
  }

  @Test
  void halfCreatedSegmentIsDiscarded() throws Exception {
    JournalFacts before = build();
    String next = SegmentFiles.logName(before.lastSeq() + 1);
    byte[] partial =
        new SegmentHeader(
                SegmentHeader.VERSION, SegmentHeader.KIND_LOG, 7, before.lastSeq() + 1, WORKER)
            .encode()
            .array();
    Files.write(dir.resolve(next), java.util.Arrays.copyOf(partial, 60)); // header cut short
    Files.write(dir.resolve(SegmentFiles.logName(before.lastSeq() + 1) + ".tmp"), new byte[4096]);
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.facts()).isEqualTo(before);
      assertThat(j.report().removedFiles()).contains(next, next + ".tmp");
      assertThat(j.append(offer("next"))).isEqualTo(before.lastSeq() + 1);
    }
  }

  @Test
  void missingMiddleSegmentIsASequenceGap() throws Exception {
    build();
    List<String> logs = files().stream().filter(n -> n.endsWith(".log")).toList();
    assertThat(logs.size()).isGreaterThanOrEqualTo(3);
    Files.delete(dir.resolve(logs.get(1)));
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.RECOVERY_REQUIRED);
      assertThat(j.report().recoveryRequired().orElseThrow().reason())
          .isEqualTo(RecoveryRequired.Reason.SEQUENCE_GAP);
    }
  }

  @Test
  void damagedTailOfASegmentFollowedByAnEmptySegmentIsNotATornTail() throws Exception {
    long last;
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      last = j.append(offer("b"));
    }
    // The next segment exists (valid header, no record yet): the first one was forced before it.
    try (Storage.StorageFile f =
        SegmentFiles.createLog(
            new FileStorage(dir),
            SegmentFiles.logName(last + 1),
            256 * 1024,
            new SegmentHeader(
                SegmentHeader.VERSION, SegmentHeader.KIND_LOG, 99, last + 1, WORKER))) {
      assertThat(f.size()).isEqualTo(256 * 1024);
    }
    Path first = dir.resolve(SegmentFiles.logName(1));
    byte[] b = Files.readAllBytes(first);
    List<Frame> frames = SegmentBytes.frames(b);
    b[frames.get(frames.size() - 1).position() + 30] ^= 0x08;
    Files.write(first, b);
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.RECOVERY_REQUIRED);
      assertThat(j.report().recoveryRequired().orElseThrow().reason())
          .isEqualTo(RecoveryRequired.Reason.CORRUPT_RECORD);
    }
    assertThat(Files.readAllBytes(first)).isEqualTo(b);
  }

  @Test
  void unknownFormatVersionIsRecoveryRequired() throws Exception {
    build();
    String first = files().stream().filter(n -> n.endsWith(".log")).findFirst().orElseThrow();
    Path p = dir.resolve(first);
    byte[] b = Files.readAllBytes(p);
    SegmentHeader h = SegmentHeader.parse(java.nio.ByteBuffer.wrap(b));
    byte[] v2 = new SegmentHeader(2, h.kind(), h.salt(), h.base(), h.workerId()).encode().array();
    System.arraycopy(v2, 0, b, 0, v2.length);
    Files.write(p, b);
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.report().recoveryRequired().orElseThrow().reason())
          .isEqualTo(RecoveryRequired.Reason.UNKNOWN_FORMAT_VERSION);
    }
  }
}
