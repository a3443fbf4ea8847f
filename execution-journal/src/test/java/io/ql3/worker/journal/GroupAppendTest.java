package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Journal#appendAllAsync}: records queued together are written and forced together, so the
 * execution plane's "offer accepted + run started + pull closed" costs exactly one force before a
 * launch, however the writer thread is scheduled.
 */
class GroupAppendTest {
  @TempDir Path dir;

  @Test
  void aGroupIsOneWriteAndOneForceEveryTime() {
    CountingStorage counting = new CountingStorage(new FileStorage(dir));
    try (Journal j = Journal.open(config(dir), counting, p -> {})) {
      j.append(session());
      for (int i = 0; i < 300; i++) {
        String run = "r" + i;
        j.append(new PullReserved("p" + i, 1));
        long forces = counting.forces.get();
        long writes = counting.writes.get();
        List<CompletableFuture<Long>> done =
            j.appendAllAsync(List.of(offer(run), started(run), new PullClosed("p" + i)));
        long first = done.get(0).join();
        assertThat(done.get(1).join()).isEqualTo(first + 1);
        assertThat(done.get(2).join()).isEqualTo(first + 2);
        // The writer may wake on the queue before the producer returns: a group is still one
        // entry, never split between two forces (separate appendAsync calls could be).
        assertThat(counting.forces.get() - forces).isEqualTo(1);
        assertThat(counting.writes.get() - writes).isEqualTo(1);
        j.append(succeeded(run));
      }
      assertThat(j.facts().openPulls()).isEmpty();
      assertThat(j.facts().pendingCompletions()).hasSize(300);
    }
  }

  @Test
  void aRefusedRecordFailsAloneAndTheRestOfTheGroupIsDurable() {
    try (Journal j = Journal.open(config(dir))) {
      j.append(session());
      // "started" before its offer is not allowed: that record fails, its neighbours are written.
      List<CompletableFuture<Long>> done =
          j.appendAllAsync(List.of(new PullReserved("p", 1), started("nobody"), offer("a")));
      assertThat(done.get(0).join()).isEqualTo(2);
      assertThatThrownBy(done.get(1)::join).hasCauseInstanceOf(JournalStateException.class);
      assertThat(done.get(2).join()).isEqualTo(3);
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.facts().openPulls()).hasSize(1);
      assertThat(j.facts().accepted()).hasSize(1);
    }
  }

  @Test
  void aForceErrorFailsEveryRecordOfTheGroup() {
    FaultyStorage st = new FaultyStorage(new FileStorage(dir));
    Journal j = Journal.open(config(dir), st, p -> {});
    j.append(session());
    st.failForce = true;
    List<CompletableFuture<Long>> done = j.appendAllAsync(List.of(offer("a"), started("a")));
    for (CompletableFuture<Long> f : done) {
      assertThatThrownBy(f::join).hasCauseInstanceOf(JournalFailedException.class);
    }
    assertThatThrownBy(() -> j.appendAllAsync(List.of(offer("b"))))
        .isInstanceOf(JournalFailedException.class);
    j.close();
  }

  @Test
  void anEmptyGroupWritesNothingAndAClosedJournalRefusesAGroup() {
    CountingStorage counting = new CountingStorage(new FileStorage(dir));
    Journal j = Journal.open(config(dir), counting, p -> {});
    long writes = counting.writes.get();
    assertThat(j.appendAllAsync(List.of())).isEmpty();
    j.close();
    assertThat(counting.writes.get()).isEqualTo(writes);
    assertThatThrownBy(() -> j.appendAllAsync(List.of(session())))
        .isInstanceOf(JournalClosedException.class);
  }
}
