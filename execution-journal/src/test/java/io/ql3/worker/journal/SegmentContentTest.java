package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.SESSION;
import static io.ql3.worker.journal.Fixtures.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery reads a log segment only up to where a frame can end ({@link SegmentFiles#readContent}),
 * not its preallocated zero tail: real files in a temporary directory.
 */
class SegmentContentTest {
  @TempDir Path dir;

  @Test
  void aRecordWhosePayloadEndsInZeroBytesIsReplayed() throws IOException {
    // The generation is the payload's last field: 1 << 40 ends the frame with five zero bytes,
    // so the frame runs past the segment's last non-zero byte.
    SessionRegistered last = new SessionRegistered(SESSION, 1L << 40);
    try (Journal j = Journal.open(config(dir))) {
      j.append(last);
    }
    try (Journal j = Journal.open(config(dir))) {
      assertThat(j.report().recordsReplayed()).isEqualTo(1);
      assertThat(j.report().truncatedBytes()).isZero();
      assertThat(j.facts().session().orElseThrow().generation()).isEqualTo(1L << 40);
    }
  }

  @Test
  void theContentIsThePrefixUpToOneLongestFrameAfterTheLastNonZeroByte() throws IOException {
    Random random = new Random(7);
    FileStorage storage = new FileStorage(dir);
    int longestFrame = Frame.HEADER + RecordCodec.MAX_PAYLOAD;
    int[][] cases = { // {size, bytes of data before the zero tail}
      {0, 0},
      {100, 0},
      {100, 100},
      {256 * 1024, 10},
      {256 * 1024, 64 * 1024}, // the data ends exactly at a chunk's edge
      {256 * 1024, 64 * 1024 + 1},
      {256 * 1024, 256 * 1024 - longestFrame + 3},
      {1024 * 1024, 200 * 1024},
      {300 * 1024 + 5, 17},
    };
    for (int[] c : cases) {
      byte[] file = new byte[c[0]];
      random.nextBytes(file);
      Arrays.fill(file, c[1], c[0], (byte) 0);
      if (c[1] > 0) {
        file[c[1] - 1] = 1; // the data's last byte is not zero
      }
      Files.write(dir.resolve("seg"), file);

      SegmentFiles.Content content = SegmentFiles.readContent(storage, "seg");

      int expected = Math.min(c[0], c[1] + longestFrame);
      assertThat(content.size()).as("size %s", Arrays.toString(c)).isEqualTo(c[0]);
      assertThat(content.bytes().position()).isZero();
      assertThat(content.bytes().limit()).as("length %s", Arrays.toString(c)).isEqualTo(expected);
      byte[] read = new byte[expected];
      content.bytes().get(read);
      assertThat(read).isEqualTo(Arrays.copyOf(file, expected));
    }
  }
}
