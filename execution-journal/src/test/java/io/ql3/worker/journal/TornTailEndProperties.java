package io.ql3.worker.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Where recovery puts the end of a torn tail ({@link ZeroTail#start}, which reads the buffer's
 * backing array in 8-byte words, several chunks of them for a long tail) is where a byte-by-byte
 * scan through the buffer puts it: for zero tails of every length, never below the committed end,
 * and for buffers that are slices of a larger array.
 */
class TornTailEndProperties {

  @Property(tries = 300)
  void theEndIsTheLastNonZeroByteAboveTheCommittedEnd(
      @ForAll @IntRange(min = 0, max = 64) int offset,
      @ForAll @IntRange(min = 0, max = 300) int length,
      @ForAll @IntRange(min = 0, max = 300) int zeroTail,
      @ForAll @IntRange(min = 0, max = 100) int fromPercent,
      @ForAll long seed) {
    check(offset, length, zeroTail, fromPercent, seed);
  }

  @Property(tries = 200)
  void aZeroTailOfSeveralWordChunksEndsWhereTheBytesSay(
      @ForAll @IntRange(min = 0, max = 64) int offset,
      @ForAll @IntRange(min = 0, max = 6 * ZeroTail.SCAN_WORDS * Long.BYTES) int length,
      @ForAll @IntRange(min = 0, max = 6 * ZeroTail.SCAN_WORDS * Long.BYTES) int zeroTail,
      @ForAll @IntRange(min = 0, max = 100) int fromPercent,
      @ForAll long seed) {
    check(offset, length, zeroTail, fromPercent, seed);
  }

  private static void check(int offset, int length, int zeroTail, int fromPercent, long seed) {
    Random random = new Random(seed);
    byte[] array = new byte[offset + length + 7];
    random.nextBytes(array);
    int tailStart = Math.max(0, length - zeroTail);
    for (int i = tailStart; i < length; i++) {
      array[offset + i] = 0;
    }
    if (random.nextBoolean() && tailStart > 0) {
      array[offset + random.nextInt(tailStart)] = 0; // a zero byte inside the data as well
    }
    ByteBuffer buf = ByteBuffer.wrap(array, offset, length).slice();
    int from = length * fromPercent / 100;

    int expected = byteByByte(buf, from, length);
    assertThat(ZeroTail.start(buf, from, length)).isEqualTo(expected);
    ByteBuffer direct = ByteBuffer.allocateDirect(length).put(buf.duplicate()).flip();
    assertThat(ZeroTail.start(direct, from, length)).isEqualTo(expected);
  }

  private static int byteByByte(ByteBuffer buf, int from, int limit) {
    int end = limit;
    while (end > from && buf.get(end - 1) == 0) {
      end--;
    }
    return end;
  }
}
