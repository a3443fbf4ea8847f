package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.journal.JournalRecord.PullReserved;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery-required is cleared only on purpose, by naming the reviewed problem; nothing is deleted.
 */
class OperatorResolutionTest {
  @TempDir Path dir;

  @Test
  void damagedRecordIsDiscardedOnPurposeAndKeptAside() throws Exception {
    JournalFacts beforeDamage;
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("a"));
      beforeDamage = j.facts();
      j.append(offer("b"));
      j.append(new PullReserved("p", 1));
    }
    Path seg = dir.resolve(SegmentFiles.logName(1));
    byte[] b = Files.readAllBytes(seg);
    List<Frame> frames = SegmentBytes.frames(b);
    Frame third = frames.get(2);
    b[third.position() + 27] ^= 0x22;
    Files.write(seg, b);

    RecoveryRequired problem;
    try (Journal j = Journal.open(config(dir))) {
      problem = j.report().recoveryRequired().orElseThrow();
    }
    RecoveryRequired other =
        new RecoveryRequired(
            problem.reason(), problem.file(), problem.offset() + 1, problem.detail());
    assertThatThrownBy(() -> Journal.discardDamagedLog(config(dir), other))
        .isInstanceOf(JournalStateException.class)
        .hasMessageContaining("nothing changed");
    assertThat(Files.readAllBytes(seg)).isEqualTo(b);

    try (Journal j = Journal.discardDamagedLog(config(dir), problem)) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN);
      assertThat(j.facts()).isEqualTo(beforeDamage);
      assertThat(j.append(offer("c"))).isEqualTo(3);
    }
    Path aside = dir.resolve(SegmentFiles.logName(1) + ".discarded.1");
    assertThat(Files.readAllBytes(aside))
        .isEqualTo(Arrays.copyOfRange(b, third.position(), b.length)); // the evidence is kept
  }

  @Test
  void foreignWorkerIsNotResolvedByDiscarding() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
    }
    JournalConfig foreign = JournalConfig.of(dir, "someone-else").withSegmentBytes(256 * 1024);
    RecoveryRequired problem;
    try (Journal j = Journal.open(foreign)) {
      problem = j.report().recoveryRequired().orElseThrow();
    }
    assertThatThrownBy(() -> Journal.discardDamagedLog(foreign, problem))
        .isInstanceOf(JournalStateException.class)
        .hasMessageContaining("FOREIGN_WORKER");
  }
}
