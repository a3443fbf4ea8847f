package io.ql3.worker.journal;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;

/**
 * Where the zero tail of a range begins: a preallocated segment is zeros after its data, so
 * recovery ({@link Recovery}) and the segment reader ({@link SegmentFiles#readContent}) look for
 * the end of the last non-zero byte. Exact: a zero byte inside the data is data; only the bytes
 * after the last non-zero one are the tail.
 */
final class ZeroTail {

  /** How many 8-byte words {@link #start} copies out of the buffer at a time. */
  static final int SCAN_WORDS = 256;

  private ZeroTail() {}

  /**
   * The end of the last non-zero byte in [{@code from}, {@code limit}), or {@code from} when all
   * are zero. Nothing here is a call per byte: under the edge profile's interpreter a {@code
   * buf.get(i)} per byte of a 1 MiB segment cost every restart ~0.3 s of CPU, a loop over the bytes
   * of the backing array still ~25 ms (docs/perf/edge.md, "Tenth pass", "Fourteenth pass"). The
   * range is read as 8-byte words, {@value #SCAN_WORDS} at a time by one bulk copy, from the end;
   * only the fewer than 8 bytes past the last whole word and the last word with a non-zero byte are
   * looked at byte by byte.
   */
  static int start(ByteBuffer buf, int from, int limit) {
    byte[] a;
    int base;
    if (buf.hasArray()) {
      a = buf.array();
      base = buf.arrayOffset();
    } else {
      a = new byte[limit - from]; // a buffer without one: its range copied once
      buf.get(from, a);
      base = -from;
    }
    int wordCount = (limit - from) / Long.BYTES;
    int wordsEnd = from + wordCount * Long.BYTES; // [wordsEnd, limit): fewer than 8 bytes
    int end = limit;
    while (end > wordsEnd) {
      if (a[base + end - 1] != 0) {
        return end;
      }
      end--;
    }
    if (wordCount > 0) {
      LongBuffer words =
          ByteBuffer.wrap(a, base + from, wordCount * Long.BYTES).slice().asLongBuffer();
      long[] chunk = new long[Math.min(SCAN_WORDS, wordCount)];
      int w = wordCount; // words [w, wordCount) are zero
      while (w > 0) {
        int n = Math.min(chunk.length, w);
        words.get(w - n, chunk, 0, n);
        int i = n;
        while (i > 0 && chunk[i - 1] == 0) {
          i--;
        }
        if (i > 0) {
          end = from + (w - n + i) * Long.BYTES; // the end of the last word with a non-zero byte
          break;
        }
        w -= n;
      }
      if (w == 0) {
        return from;
      }
    }
    while (end > from && a[base + end - 1] == 0) {
      end--;
    }
    return end;
  }
}
