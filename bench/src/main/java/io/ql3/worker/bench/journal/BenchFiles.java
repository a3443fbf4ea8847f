package io.ql3.worker.bench.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temp directories and preallocated files for the journal benchmarks. */
final class BenchFiles {
  private BenchFiles() {}

  static Path tempDir(String name) {
    try {
      String base = System.getProperty("ql3.bench.dir", System.getProperty("java.io.tmpdir"));
      return Files.createTempDirectory(Path.of(base), name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A zero-filled (not sparse) file of the given size, forced. */
  static FileChannel preallocated(Path file, long size) throws IOException {
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
    for (long pos = 0; pos < size; pos += zeros.capacity()) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), size - pos));
      while (zeros.hasRemaining()) {
        ch.write(zeros, pos + zeros.position());
      }
    }
    ch.force(true);
    return ch;
  }

  static void deleteTree(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long directoryBytes(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      return -1; // a file vanished while listing (compaction); the sampler tries again
    }
  }
}
