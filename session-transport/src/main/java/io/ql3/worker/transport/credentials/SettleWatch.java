package io.ql3.worker.transport.credentials;

import java.time.Duration;
import java.util.List;

/**
 * When a changed version of credential files may be read: once the files' modification and change
 * times are older than the settle window (a writer is done with them), or once this version was
 * seen unchanged for that long. The second rule is for times that lie in the future: a copy that
 * kept the modification time of a host whose clock runs ahead ({@code cp -p}, {@code rsync -t}), or
 * a clock stepped back; by the first rule alone that rotation would wait for the clock to catch up.
 * One per group of files (the TLS set, the token); guarded by the provider.
 */
final class SettleWatch {
  private final long windowMillis;
  private List<FileStamp> seen;
  private long seenSinceMillis;

  SettleWatch(Duration window) {
    this.windowMillis = window.toMillis();
  }

  boolean settled(List<FileStamp> stamps, long nowMillis) {
    if (!stamps.equals(seen) || nowMillis < seenSinceMillis) {
      seen = stamps;
      seenSinceMillis = nowMillis;
    }
    if (nowMillis - seenSinceMillis >= windowMillis) {
      return true;
    }
    long nowNanos = nowMillis * 1_000_000L;
    long window = windowMillis * 1_000_000L;
    for (FileStamp s : stamps) {
      if (nowNanos - s.mtimeNanos() < window || nowNanos - s.ctimeNanos() < window) {
        return false;
      }
    }
    return true;
  }
}
