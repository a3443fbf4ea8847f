package io.ql3.worker.runtime.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A per-run output log bounded by size: when {@code path} reaches {@code maxBytes} it is renamed to
 * {@code path.1} (replacing an older one) and a new {@code path} starts. At most {@code 2 *
 * maxBytes} on disk; the newest output is at the end of {@code path}. Not thread-safe (one writer:
 * the output pump).
 */
final class RotatingLog implements AutoCloseable {

  private final Path path;
  private final Path rotated;
  private final long maxBytes;
  private FileChannel channel;
  private long size;
  private int rotations;

  private RotatingLog(Path path, long maxBytes) throws IOException {
    this.path = path;
    this.rotated = path.resolveSibling(path.getFileName() + ".1");
    this.maxBytes = maxBytes;
    Files.deleteIfExists(rotated); // left by an earlier attempt at the same path
    this.channel = open(path);
  }

  /** Creates (or truncates) the log and its parent directories. */
  static RotatingLog create(Path path, long maxBytes) throws IOException {
    Path parent = path.getParent();
    // Files.createDirectories on a directory that exists throws and catches an exception with its
    // stack trace inside: once a run under the interpreter, for nothing.
    if (parent != null && !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(parent);
    }
    return new RotatingLog(path, maxBytes);
  }

  void write(byte[] bytes, int offset, int length) throws IOException {
    int off = offset;
    int left = length;
    while (left > 0) {
      if (size >= maxBytes) {
        rotate();
      }
      int n = (int) Math.min(left, maxBytes - size);
      ByteBuffer buf = ByteBuffer.wrap(bytes, off, n);
      while (buf.hasRemaining()) {
        channel.write(buf);
      }
      size += n;
      off += n;
      left -= n;
    }
  }

  int rotations() {
    return rotations;
  }

  private void rotate() throws IOException {
    channel.close();
    Files.move(path, rotated, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    channel = open(path);
    size = 0;
    rotations++;
  }

  private static FileChannel open(Path p) throws IOException {
    return FileChannel.open(
        p,
        StandardOpenOption.CREATE,
        StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING,
        java.nio.file.LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
