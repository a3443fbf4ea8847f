package io.ql3.worker.journal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One record frame. Layout (big-endian), {@link #HEADER} bytes then the payload:
 *
 * <pre>
 *   0 int  payload length (1..MAX_PAYLOAD)
 *   4 int  CRC32C over: the file's salt (8 bytes), bytes 0..3, bytes 8..end of payload
 *   8 long sequence number
 *  16 long sequence of the first record of this frame's group commit (batch)
 *  24 byte flags: bit 0 = last record of its batch (the commit mark)
 *  25 byte record kind
 * </pre>
 *
 * The CRC covers the length, and the salt makes bytes left from an earlier use of the space
 * (another file, an earlier salt) fail validation.
 */
record Frame(int position, int payloadLength, long seq, long batchFirst, boolean last, byte kind) {
  static final int HEADER = 26;
  static final byte FLAG_LAST = 1;

  int end() {
    return position + HEADER + payloadLength;
  }

  ByteBuffer payload(ByteBuffer buf) {
    ByteBuffer p = buf.duplicate();
    p.limit(position + HEADER + payloadLength).position(position + HEADER);
    return p.slice();
  }

  /** Writes a frame at dst.position() (not marked last) and advances the position. */
  static int write(
      ByteBuffer dst,
      CRC32C crc,
      long salt,
      long seq,
      long batchFirst,
      byte kind,
      ByteBuffer payload) {
    int start = dst.position();
    int len = payload.remaining();
    dst.putInt(len).putInt(0).putLong(seq).putLong(batchFirst).put((byte) 0).put(kind).put(payload);
    dst.putInt(start + 4, crc(dst, crc, salt, start, len));
    return start;
  }

  /** Sets the commit mark on the frame at {@code start} and recomputes its CRC. */
  static void markLast(ByteBuffer dst, CRC32C crc, long salt, int start) {
    dst.put(start + 24, FLAG_LAST);
    dst.putInt(start + 4, crc(dst, crc, salt, start, dst.getInt(start)));
  }

  /** Reads and validates a frame at pos, or returns null when none validates there. */
  static Frame read(ByteBuffer buf, CRC32C crc, long salt, int pos, int limit) {
    if (pos + HEADER > limit) {
      return null;
    }
    int len = buf.getInt(pos);
    if (len < 1 || len > RecordCodec.MAX_PAYLOAD || pos + HEADER + len > limit) {
      return null;
    }
    if (buf.getInt(pos + 4) != crc(buf, crc, salt, pos, len)) {
      return null;
    }
    byte flags = buf.get(pos + 24);
    if ((flags & ~FLAG_LAST) != 0) {
      return null;
    }
    return new Frame(
        pos,
        len,
        buf.getLong(pos + 8),
        buf.getLong(pos + 16),
        flags == FLAG_LAST,
        buf.get(pos + 25));
  }

  private static int crc(ByteBuffer b, CRC32C crc, long salt, int start, int len) {
    crc.reset();
    for (int i = 56; i >= 0; i -= 8) {
      crc.update((int) (salt >>> i) & 0xff);
    }
    if (b.hasArray()) { // recovery reads heap buffers: no duplicates on the hot path
      byte[] a = b.array();
      int off = b.arrayOffset();
      crc.update(a, off + start, 4);
      crc.update(a, off + start + 8, HEADER - 8 + len);
      return (int) crc.getValue();
    }
    ByteBuffer d = b.duplicate();
    d.limit(start + 4).position(start);
    crc.update(d);
    d.limit(start + HEADER + len).position(start + 8);
    crc.update(d);
    return (int) crc.getValue();
  }
}
