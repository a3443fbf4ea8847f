package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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

  @Test
  void workWaitingForOwnershipRunsWithTheLockHeldBeforeTheRecoveryTouchesAnything()
      throws Exception {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      j.append(offer("run-1"));
    }
    Path segment;
    try (var s = Files.list(dir)) {
      segment =
          s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
    // A torn tail after the last record: the recovery zeroes it.
    byte[] bytes = Files.readAllBytes(segment);
    int end = SegmentBytes.frames(bytes).get(1).end();
    Arrays.fill(bytes, end, end + 7, (byte) 0x5a);
    Files.write(segment, bytes);

    List<String> seen = new ArrayList<>();
    try (Journal j =
        Journal.open(
            config(dir),
            () -> {
              try {
                Journal.open(config(dir)).close();
                seen.add("not owned");
              } catch (JournalOwnedException e) {
                seen.add("owned");
              }
              try {
                seen.add(Files.readAllBytes(segment)[end] == 0x5a ? "torn tail" : "zeroed");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            })) {
      assertThat(seen).containsExactly("owned", "torn tail");
      assertThat(j.report().truncatedBytes()).isEqualTo(7);
      assertThat(Files.readAllBytes(segment)[end]).isZero();
    }
  }

  @Test
  void workWaitingForOwnershipDoesNotRunWhenAnotherOwnsTheJournalAndItsFailureReleasesTheLock()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (Journal j = Journal.open(config(dir))) {
      assertThatThrownBy(() -> Journal.open(config(dir), runs::incrementAndGet))
          .isInstanceOf(JournalOwnedException.class);
    }
    assertThat(runs).hasValue(0);
    assertThatThrownBy(
            () ->
                Journal.open(
                    config(dir),
                    () -> {
                      throw new IllegalStateException("the caller's work failed");
                    }))
        .hasMessage("the caller's work failed");
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.status()).isEqualTo(Journal.Status.OPEN);
    }
  }
}
