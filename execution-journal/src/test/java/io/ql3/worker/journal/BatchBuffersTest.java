package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.config;
import static io.ql3.worker.journal.Fixtures.offer;
import static io.ql3.worker.journal.Fixtures.session;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's batch buffer starts small and grows with the batch: its content and position survive
 * the growth, and a batch many times the initial size is still one write and one force of records
 * that a reopened journal replays (real files).
 */
class BatchBuffersTest {
  @TempDir Path dir;

  @Test
  void aBufferWithRoomIsKeptAndAFullOneGrowsWithItsContent() {
    ByteBuffer buf = BatchBuffers.create(1 << 20);
    assertThat(buf.isDirect()).isTrue();
    assertThat(buf.capacity()).isEqualTo(BatchBuffers.INITIAL_BYTES);
    for (int i = 0; i < 10_000; i++) {
      buf.put((byte) i);
    }
    assertThat(BatchBuffers.withRoom(buf, 100, 1 << 20)).isSameAs(buf);

    ByteBuffer grown = BatchBuffers.withRoom(buf, 40_000, 1 << 20);
    assertThat(grown.isDirect()).isTrue();
    assertThat(grown.position()).isEqualTo(10_000);
    assertThat(grown.capacity()).isEqualTo(50_000); // what is needed, more than twice 16 KiB
    for (int i = 0; i < 10_000; i++) {
      assertThat(grown.get(i)).isEqualTo((byte) i);
    }
    assertThat(BatchBuffers.withRoom(grown, 50_001, 1 << 20).capacity()).isEqualTo(100_000);
  }

  @Test
  void aBufferNeverGrowsPastTheSegment() {
    ByteBuffer buf = BatchBuffers.withRoom(BatchBuffers.create(256 * 1024), 200_000, 256 * 1024);
    assertThat(buf.capacity()).isEqualTo(200_000);
    buf.position(150_000);
    // Twice 200,000 would pass the segment: the segment's size it is.
    assertThat(BatchBuffers.withRoom(buf, 60_000, 256 * 1024).capacity()).isEqualTo(256 * 1024);
    assertThatThrownBy(() -> BatchBuffers.withRoom(buf, 150_000, 256 * 1024))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(BatchBuffers.create(8 * 1024).capacity()).isEqualTo(8 * 1024);
  }

  @Test
  void aBatchManyTimesTheInitialSizeIsOneForceAndIsReplayed() {
    CountingStorage counting = new CountingStorage(new FileStorage(dir));
    List<JournalRecord> group = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      group.add(offer("run-with-a-long-enough-name-" + i));
    }
    try (Journal j = Journal.open(config(dir), counting, p -> {})) {
      j.append(session());
      long forces = counting.forces.get();
      List<CompletableFuture<Long>> done = j.appendAllAsync(group);
      done.forEach(CompletableFuture::join);
      assertThat(counting.forces.get() - forces).isEqualTo(1);
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.report().recordsReplayed()).isEqualTo(601);
      assertThat(j.facts().accepted()).hasSize(600);
    }
  }
}
