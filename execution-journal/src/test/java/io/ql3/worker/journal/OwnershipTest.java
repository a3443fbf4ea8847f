package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnershipTest {
  @TempDir Path dir;

  @Test
  void secondProcessIsRefusedWithTheOwnerPidAndTheLockDiesWithTheOwner() throws Exception {
    ChildJvm owner = ChildJvm.start(OwnerChild.class, dir.toString());
    String line = owner.awaitLine("OWNED", 30_000);
    assertThat(line).as("%s", owner.lines).isNotNull();
    long pid = owner.process.pid();
    assertThatThrownBy(() -> Journal.open(config(dir)))
        .isInstanceOfSatisfying(
            JournalOwnedException.class, e -> assertThat(e.ownerPid()).hasValue(pid))
        .hasMessageContaining("pid " + pid);
    owner.kill9();
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN);
    }
  }

  @Test
  void secondOpenInTheSameJvmIsRefusedAndDoesNotDropTheLock() throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> Journal.open(config(dir)))
            .isInstanceOfSatisfying(
                JournalOwnedException.class,
                e -> assertThat(e.ownerPid()).hasValue(ProcessHandle.current().pid()));
      }
      // Another process must still be refused: the failed opens did not drop our OS lock.
      ChildJvm probe = ChildJvm.start(OwnerChild.class, dir.toString());
      assertThat(probe.process.waitFor()).isZero();
      probe.kill9();
      assertThat(probe.lines).containsExactly("REFUSED " + ProcessHandle.current().pid());
      j.append(session());
    }
    // Closed: the lock is released and the directory can be owned again.
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.facts().lastSeq()).isEqualTo(1);
    }
  }
}
