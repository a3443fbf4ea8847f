package io.ql3.worker.runtime.isolation;

import java.io.FileInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads a small file whole: a cgroup interface file or a {@code /proc/sysvipc} table, several of
 * which are read at the end of every run. One {@link FileInputStream} and a read loop into one
 * growing array, the bytes as the kernel gave them: under the edge agent's interpreter {@code
 * Files.readString} (a {@code FileChannel}, its size, a temporary direct buffer and a copy) cost
 * 67–71 µs a file and this 24–25 µs (docs/perf/edge.md, "Sixteenth pass"). Follows a link, as
 * {@code Files.readAllBytes} does; a missing file or a directory is an {@link IOException}. Unlike
 * a {@code FileChannel}, a read is not abandoned when the thread's interrupt flag is set. Limit:
 * the whole file is held in memory, so it is for files of a few KiB (a {@code /proc/sysvipc} table
 * grows with the host's objects, one line each).
 */
final class KernelFile {
  private static final int FIRST_READ = 1024;

  private KernelFile() {}

  /** The bytes of {@code file}, a path as a string (a {@code Path} resolved per read cost more). */
  static byte[] read(String file) throws IOException {
    try (FileInputStream in = new FileInputStream(file)) {
      byte[] buf = new byte[FIRST_READ];
      int n = 0;
      int r;
      while ((r = in.read(buf, n, buf.length - n)) > 0) {
        n += r;
        if (n == buf.length) {
          buf = Arrays.copyOf(buf, n * 2);
        }
      }
      return Arrays.copyOf(buf, n);
    }
  }
}
