package io.ql3.worker.runtime.exec;

/** Keeps the last {@code capacity} bytes written, in a ring. Not thread-safe. */
final class TailBuffer {

  private final byte[] ring;
  private long written;

  TailBuffer(int capacity) {
    this.ring = new byte[capacity];
  }

  void add(byte[] bytes, int offset, int length) {
    int cap = ring.length;
    if (length >= cap) {
      // Only the last cap bytes can survive: copy them, aligned on the ring position.
      int from = offset + length - cap;
      long newWritten = written + length;
      int pos = (int) ((newWritten - cap) % cap);
      int first = cap - pos;
      System.arraycopy(bytes, from, ring, pos, first);
      System.arraycopy(bytes, from + first, ring, 0, cap - first);
      written = newWritten;
      return;
    }
    int pos = (int) (written % cap);
    int first = Math.min(length, cap - pos);
    System.arraycopy(bytes, offset, ring, pos, first);
    System.arraycopy(bytes, offset + first, ring, 0, length - first);
    written += length;
  }

  /** The kept bytes, oldest first. */
  byte[] toByteArray() {
    int cap = ring.length;
    if (written <= cap) {
      byte[] out = new byte[(int) written];
      System.arraycopy(ring, 0, out, 0, out.length);
      return out;
    }
    byte[] out = new byte[cap];
    int pos = (int) (written % cap);
    System.arraycopy(ring, pos, out, 0, cap - pos);
    System.arraycopy(ring, 0, out, cap - pos, pos);
    return out;
  }
}
