package io.ql3.worker.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The fixed 128-byte header of every segment and snapshot file.
 *
 * <pre>
 *   0  int   magic "QL3J"
 *   4  int   format version
 *   8  int   kind (1 = log segment, 2 = snapshot)
 *  12  int   reserved (0)
 *  16  long  salt: random per file, seeds every record CRC of the file
 *  24  long  base: log = sequence of its first record; snapshot = last sequence it covers
 *  32  short workerId length, 34..97 workerId (US-ASCII)
 * 124  int   CRC32C of bytes 0..123
 * </pre>
 */
record SegmentHeader(int version, int kind, long salt, long base, String workerId) {
  static final int SIZE = 128;
  static final int MAGIC = 0x514C334A;
  static final int VERSION = 1;
  static final int KIND_LOG = 1;
  static final int KIND_SNAPSHOT = 2;
  private static final int MAX_WORKER_ID = 64;

  ByteBuffer encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE);
    b.putInt(MAGIC).putInt(version).putInt(kind).putInt(0).putLong(salt).putLong(base);
    byte[] w = workerId.getBytes(StandardCharsets.US_ASCII);
    if (w.length > MAX_WORKER_ID) {
      throw new IllegalArgumentException("workerId longer than " + MAX_WORKER_ID);
    }
    b.putShort((short) w.length).put(w);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 124);
    b.putInt(124, (int) crc.getValue());
    b.position(0).limit(SIZE);
    return b;
  }

  /** Parses the header at position 0 of {@code b}, or returns null when it does not validate. */
  static SegmentHeader parse(ByteBuffer b) {
    if (b.limit() < SIZE || b.getInt(0) != MAGIC) {
      return null;
    }
    CRC32C crc = new CRC32C();
    ByteBuffer d = b.duplicate();
    d.position(0).limit(124);
    crc.update(d);
    if ((int) crc.getValue() != b.getInt(124)) {
      return null;
    }
    int len = b.getShort(32);
    if (len < 0 || len > MAX_WORKER_ID) {
      return null;
    }
    byte[] w = new byte[len];
    d = b.duplicate();
    d.position(34);
    d.get(w);
    return new SegmentHeader(
        b.getInt(4),
        b.getInt(8),
        b.getLong(16),
        b.getLong(24),
        new String(w, StandardCharsets.US_ASCII));
  }
}
