package io.ql3.worker.transport;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Copies response body bytes out of Netty buffers as they arrive, never holding more than the cap:
 * the byte after the cap marks the body as over the cap and nothing more is kept.
 */
final class CappedBody {
  private final int cap;
  private byte[] bytes = new byte[0];
  private int length;
  private boolean overCap;

  CappedBody(int cap) {
    this.cap = cap;
  }

  /**
   * Copies readable bytes of {@code buf} (the caller releases it). @return false once over the cap
   */
  boolean append(ByteBuf buf) {
    int n = buf.readableBytes();
    if (overCap) {
      return false;
    }
    if ((long) length + n > cap) {
      overCap = true;
      bytes = null;
      return false;
    }
    if (length + n > bytes.length) {
      bytes =
          Arrays.copyOf(
              bytes, Math.min(cap, Math.max(length + n, Math.max(256, bytes.length * 2))));
    }
    buf.getBytes(buf.readerIndex(), bytes, length, n);
    length += n;
    return true;
  }

  boolean overCap() {
    return overCap;
  }

  byte[] toByteArray() {
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }
}
