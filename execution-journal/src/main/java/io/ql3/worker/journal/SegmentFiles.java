package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Names of the journal's files and the two ways they come into existence durably. */
final class SegmentFiles {
  static final String TMP_SUFFIX = ".tmp";
  private static final java.security.SecureRandom TMP_NAMES = new java.security.SecureRandom();

  /**
   * A temporary name for {@code name}: unpredictable, so nothing can be planted at it, and ending
   * in {@link #TMP_SUFFIX}, so recovery removes it after a crash.
   */
  static String tempName(String name) {
    return name + "." + Long.toHexString(TMP_NAMES.nextLong()) + TMP_SUFFIX;
  }

  private static final Pattern LOG = Pattern.compile("seg-(\\d{20})\\.log");
  private static final Pattern SNAPSHOT = Pattern.compile("snap-(\\d{20})\\.snap");
  private static final int ZERO_CHUNK = 64 * 1024;

  private SegmentFiles() {}

  static String logName(long baseSeq) {
    return "seg-" + twentyDigits(baseSeq) + ".log";
  }

  static String snapshotName(long seq) {
    return "snap-" + twentyDigits(seq) + ".snap";
  }

  /**
   * {@code n} (not negative) zero-padded to 20 digits, without {@code String.format}: the JDK's
   * formatter loads the JDK's locale data, which the edge agent otherwise never needs
   * (docs/perf/edge.md, "Eleventh pass").
   */
  private static String twentyDigits(long n) {
    String digits = Long.toString(n);
    return "0".repeat(20 - digits.length()) + digits;
  }

  /** Base sequence from a log segment name, or -1 when not one. */
  static long logBase(String name) {
    Matcher m = LOG.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Covered sequence from a snapshot name, or -1 when not one. */
  static long snapshotSeq(String name) {
    Matcher m = SNAPSHOT.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * Creates a log segment of {@code size} bytes: zero-filled (not sparse, so appends never grow the
   * file and the end of data reads as zeros), header written, forced, renamed into place, directory
   * forced. A crash leaves either no segment or a complete one (plus a temp file).
   */
  static Storage.StorageFile createLog(Storage st, String name, int size, SegmentHeader header)
      throws IOException {
    String tmp = tempName(name);
    try (Storage.StorageFile f = st.open(tmp, true)) {
      ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
      for (long pos = 0; pos < size; pos += ZERO_CHUNK) {
        zeros.clear().limit((int) Math.min(ZERO_CHUNK, size - pos));
        f.write(zeros, pos);
      }
      f.write(header.encode(), 0);
      f.force(true);
    }
    st.rename(tmp, name);
    st.syncDirectory();
    return st.open(name, false);
  }

  /**
   * A log segment's bytes up to where a frame can end, and the file's size. A segment is created
   * zero-filled, so its data ends at its last non-zero byte; a frame may run past that only with a
   * payload that ends in zero bytes, so {@link #readContent} reads up to one longest frame further
   * (a frame starting after the last non-zero byte would have length 0, which no frame has). The
   * zero tail of a preallocated segment (most of it after a restart) is never copied to the heap:
   * on the edge profile that copy was a 1 MiB array that stayed in the agent's RSS (docs/perf/
   * edge.md, "Tenth pass").
   *
   * @param bytes position 0, limit = what was read (at most {@code size})
   */
  record Content(ByteBuffer bytes, int size) {}

  /** Reads a log segment's {@link Content}: a backward scan for its last non-zero byte first. */
  static Content readContent(Storage st, String name) throws IOException {
    try (Storage.StorageFile f = st.open(name, false)) {
      long size = f.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new IOException(name + " is too large: " + size);
      }
      ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(ZERO_CHUNK, size));
      long end = size; // everything at and after end is zero
      while (end > 0) {
        int n = (int) Math.min(chunk.capacity(), end);
        chunk.clear().limit(n);
        f.read(chunk, end - n);
        if (chunk.position() < n) {
          break; // a short read (the file shrank): keep everything below end
        }
        int nonZeroEnd = ZeroTail.start(chunk, 0, n);
        if (nonZeroEnd > 0) {
          end = end - n + nonZeroEnd;
          break;
        }
        end -= n;
      }
      int length = (int) Math.min(size, end + Frame.HEADER + RecordCodec.MAX_PAYLOAD);
      ByteBuffer b = ByteBuffer.allocate(length);
      f.read(b, 0);
      b.flip();
      return new Content(b, (int) size);
    }
  }

  /** Reads a whole file into a heap buffer (position 0, limit = size). */
  static ByteBuffer readAll(Storage st, String name) throws IOException {
    try (Storage.StorageFile f = st.open(name, false)) {
      long size = f.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new IOException(name + " is too large: " + size);
      }
      ByteBuffer b = ByteBuffer.allocate((int) size);
      f.read(b, 0);
      b.flip();
      return b;
    }
  }
}
