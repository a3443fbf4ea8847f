package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalInspectorTest {
  @TempDir Path dir;

  private List<String> snapshotOfFiles() throws Exception {
    try (var s = Files.list(dir)) {
      return s.map(
              p -> p.getFileName() + ":" + p.toFile().length() + ":" + p.toFile().lastModified())
          .sorted()
          .toList();
    }
  }

  @Test
  void verifyIsReadOnlyAndMatchesWhatAnOpenFinds() throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      j.append(started("a"));
    }
    byte[] before = Files.readAllBytes(dir.resolve(SegmentFiles.logName(1)));
    List<String> files = snapshotOfFiles();
    JournalInspector.Verification v = JournalInspector.verify(dir, WORKER);
    assertThat(v.clean()).isTrue();
    assertThat(v.wouldDeclareUncertain()).extracting(r -> r.offer().runId()).containsExactly("a");
    assertThat(v.facts().running()).hasSize(1);
    assertThat(snapshotOfFiles()).isEqualTo(files);
    assertThat(Files.readAllBytes(dir.resolve(SegmentFiles.logName(1)))).isEqualTo(before);
    // Works while the journal is owned (no lock taken).
    try (Journal j = Journal.open(config(dir))) {
      assertThat(JournalInspector.verify(dir, WORKER).facts()).isEqualTo(j.facts());
      // The operator settles the uncertain run on purpose, with a record.
      j.append(new JournalRecord.OperatorResolved("a", 1, "checked by hand: the effect happened"));
    }
    JournalInspector.Verification after = JournalInspector.verify(dir, WORKER);
    assertThat(after.facts().heldRuns()).isZero();
    assertThat(after.facts().settled())
        .singleElement()
        .satisfies(r -> assertThat(r.settlement()).isEqualTo(Settlement.OPERATOR_RESOLVED));
  }

  @Test
  void verifyReportsRecoveryRequiredWithoutRepairing() throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      j.append(offer("b"));
    }
    Path seg = dir.resolve(SegmentFiles.logName(1));
    byte[] b = Files.readAllBytes(seg);
    Frame second = SegmentBytes.frames(b).get(1);
    b[second.position() + 30] ^= 1;
    Files.write(seg, b);
    JournalInspector.Verification v = JournalInspector.verify(dir, WORKER);
    assertThat(v.recoveryRequired())
        .hasValueSatisfying(
            r -> {
              assertThat(r.reason()).isEqualTo(RecoveryRequired.Reason.CORRUPT_RECORD);
              assertThat(r.offset()).isEqualTo(second.position());
            });
    assertThat(v.clean()).isFalse();
    assertThat(Files.readAllBytes(seg)).isEqualTo(b);
  }
}
