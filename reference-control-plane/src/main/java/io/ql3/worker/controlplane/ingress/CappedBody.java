package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.ByteBuf;

/**
 * The body of one ingress request, kept in at most cap+1 bytes: sized from the declared length when
 * there is one, else grown by doubling. While a refused request drains, its bytes are only counted.
 * The cap is {@link #UNKNOWN_PATH_DRAIN_CAP} until the path's own cap is known. Never releases a
 * buffer. Not thread-safe: used only by its {@link IngressExchange}, on the connection's event
 * loop.
 */
final class CappedBody {
  static final int UNKNOWN_PATH_DRAIN_CAP = 65_536;

  private int cap = UNKNOWN_PATH_DRAIN_CAP;
  private byte[] body;
  private int length;
  private long declared = -1;

  int cap() {
    return cap;
  }

  void cap(int cap) {
    this.cap = cap;
  }

  /** content-length, -1 when absent (or not known yet). */
  long declared() {
    return declared;
  }

  void declared(long declared) {
    this.declared = declared;
  }

  /** True when {@code n} more bytes would take the body over its cap. */
  boolean over(int n) {
    return (long) length + n > cap;
  }

  /** Counts {@code n} bytes of a refused request without keeping them. */
  void count(int n) {
    length += n; // draining a refused request: count only
  }

  /**
   * Copies the {@code n} readable bytes of {@code content} (within the cap: see {@link #over}).
   * Does not release {@code content} nor move its reader index.
   */
  void append(ByteBuf content, int n) {
    if (body == null) {
      // The declared length (at most the cap here) is the usual exact size: no copy at the end.
      body = new byte[declared >= n ? (int) declared : Math.min(cap + 1, Math.max(n, 256))];
    }
    if (length + n > body.length) {
      byte[] bigger = new byte[Math.min(cap + 1, Math.max(length + n, body.length * 2))];
      System.arraycopy(body, 0, bigger, 0, length);
      body = bigger;
    }
    content.getBytes(content.readerIndex(), body, length, n);
    length += n;
  }

  /** The bytes read, exactly; the buffer is let go. */
  byte[] take() {
    byte[] bytes =
        length == 0
            ? new byte[0]
            : body.length == length ? body : java.util.Arrays.copyOf(body, length);
    body = null;
    return bytes;
  }
}
