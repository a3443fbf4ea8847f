package io.ql3.worker.journal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to open a journal.
 *
 * @param directory the journal directory (created when missing); owned by one process
 * @param workerId the worker the journal belongs to; another id is refused
 * @param segmentBytes preallocated size of each log segment (256 KiB .. 1 GiB)
 * @param compactAfterSegments compaction runs when more log segments than this exist (>= 1)
 * @param completionWindow settled run attempts remembered for redelivery dedup (>= 1; fewer when
 *     their output tails exceed {@link #COMPLETION_WINDOW_TAIL_CHARS})
 * @param queueCapacity appends waiting for the writer before producers block (>= 1)
 */
public record JournalConfig(
    Path directory,
    String workerId,
    int segmentBytes,
    int compactAfterSegments,
    int completionWindow,
    int queueCapacity) {

  public static final int DEFAULT_SEGMENT_BYTES = 1 << 20;
  public static final int DEFAULT_COMPACT_AFTER_SEGMENTS = 4;
  public static final int DEFAULT_COMPLETION_WINDOW = 1024;

  /**
   * Output-tail characters the completion window holds at most, all its results together (1 Mi): a
   * tail is up to 16 KiB, so 1,024 of them could be 16–32 MiB of heap, more than the edge agent's
   * whole heap. Past this budget the oldest settled results leave the window, as past {@code
   * completionWindow} (docs/journal.md, section 5).
   */
  public static final int COMPLETION_WINDOW_TAIL_CHARS = 1 << 20;

  public static final int DEFAULT_QUEUE_CAPACITY = 4096;

  public JournalConfig {
    Objects.requireNonNull(directory, "directory");
    Checks.id("workerId", workerId, 63);
    if (segmentBytes < 256 * 1024 || segmentBytes > (1 << 30)) {
      throw new IllegalArgumentException("segmentBytes must be 256 KiB .. 1 GiB: " + segmentBytes);
    }
    if (compactAfterSegments < 1 || completionWindow < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "compactAfterSegments, completionWindow, queueCapacity must be >= 1");
    }
  }

  public static JournalConfig of(Path directory, String workerId) {
    return new JournalConfig(
        directory,
        workerId,
        DEFAULT_SEGMENT_BYTES,
        DEFAULT_COMPACT_AFTER_SEGMENTS,
        DEFAULT_COMPLETION_WINDOW,
        DEFAULT_QUEUE_CAPACITY);
  }

  public JournalConfig withSegmentBytes(int bytes) {
    return new JournalConfig(
        directory, workerId, bytes, compactAfterSegments, completionWindow, queueCapacity);
  }

  public JournalConfig withCompactAfterSegments(int n) {
    return new JournalConfig(directory, workerId, segmentBytes, n, completionWindow, queueCapacity);
  }

  public JournalConfig withCompletionWindow(int n) {
    return new JournalConfig(
        directory, workerId, segmentBytes, compactAfterSegments, n, queueCapacity);
  }

  public JournalConfig withQueueCapacity(int n) {
    return new JournalConfig(
        directory, workerId, segmentBytes, compactAfterSegments, completionWindow, n);
  }
}
