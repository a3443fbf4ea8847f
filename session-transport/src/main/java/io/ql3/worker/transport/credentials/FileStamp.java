package io.ql3.worker.transport.credentials;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * What one {@code stat} of a file says about its identity and content version. mtime alone misses
 * same-size same-mtime swaps, so the inode (and device) and ctime are part of it; the path is
 * followed, so a swapped {@code ..data} symlink shows as a new inode.
 */
record FileStamp(long device, long inode, long size, long mtimeNanos, long ctimeNanos) {
  private static final String ATTRIBUTES = "unix:dev,ino,size,lastModifiedTime,ctime";

  static FileStamp of(Path path) throws IOException {
    Map<String, Object> a = Files.readAttributes(path, ATTRIBUTES);
    return new FileStamp(
        ((Number) a.get("dev")).longValue(),
        ((Number) a.get("ino")).longValue(),
        ((Number) a.get("size")).longValue(),
        nanos((FileTime) a.get("lastModifiedTime")),
        nanos((FileTime) a.get("ctime")));
  }

  // equals and hashCode by hand, not generated: docs/perf/code-rules.md.
  @Override
  public boolean equals(Object o) {
    return o instanceof FileStamp other
        && device == other.device
        && inode == other.inode
        && size == other.size
        && mtimeNanos == other.mtimeNanos
        && ctimeNanos == other.ctimeNanos;
  }

  @Override
  public int hashCode() {
    return Long.hashCode((((device * 31 + inode) * 31 + size) * 31 + mtimeNanos) * 31 + ctimeNanos);
  }

  private static long nanos(FileTime t) {
    return t.to(java.util.concurrent.TimeUnit.NANOSECONDS);
  }
}
