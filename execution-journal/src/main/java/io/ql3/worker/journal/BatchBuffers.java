package io.ql3.worker.journal;

import java.nio.ByteBuffer;

/**
 * The writer's batch buffer, grown on demand instead of allocated at the segment's size: a direct
 * buffer's memory is zeroed, so all of it is resident, and a batch is usually a few records (on the
 * edge profile a 1 MiB buffer held batches of a few hundred bytes).
 */
final class BatchBuffers {
  /** Where a batch buffer starts (it grows by doubling, up to the segment's size). */
  static final int INITIAL_BYTES = 16 * 1024;

  private BatchBuffers() {}

  /** A new, empty batch buffer for segments of {@code segmentBytes}. */
  static ByteBuffer create(int segmentBytes) {
    return ByteBuffer.allocateDirect(Math.min(INITIAL_BYTES, segmentBytes));
  }

  /**
   * {@code buf} itself when {@code bytes} more fit after its position, else a larger copy (same
   * position, content before it kept): twice the capacity, at least what is needed, at most {@code
   * maxBytes}.
   *
   * @throws IllegalArgumentException when the content and {@code bytes} exceed {@code maxBytes}
   */
  static ByteBuffer withRoom(ByteBuffer buf, int bytes, int maxBytes) {
    if (buf.remaining() >= bytes) {
      return buf;
    }
    int need = buf.position() + bytes;
    if (need > maxBytes) {
      throw new IllegalArgumentException(need + " bytes do not fit a batch of at most " + maxBytes);
    }
    int capacity = (int) Math.min(maxBytes, Math.max(need, 2L * buf.capacity()));
    ByteBuffer grown = ByteBuffer.allocateDirect(capacity);
    buf.flip();
    grown.put(buf);
    return grown;
  }
}
