package io.ql3.worker.runtime.plane;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where a run attempt's files live: {@code WORK/runs/<runId>@<attempt>/} (its work directory) and
 * {@code WORK/logs/<runId>@<attempt>.log} (its output, outside the work directory so the run cannot
 * tamper with it). {@code @} cannot appear in a runId, so names never collide.
 */
final class RunPaths {
  private final Path runs;
  private final Path logs;
  private final int keptLogs;
  private boolean logsReady;

  RunPaths(Path workDir, int keptLogs) {
    Path base = workDir.toAbsolutePath().normalize();
    this.runs = base.resolve("runs");
    this.logs = base.resolve("logs");
    this.keptLogs = keptLogs;
  }

  Path workDirectory(String runId, long attempt) {
    return runs.resolve(runId + "@" + attempt);
  }

  Path outputLog(String runId, long attempt) {
    if (!logsReady) {
      // Once per process, not per offer: this is on the offer-to-start path (an existing directory
      // costs createDirectories a failed mkdir and an exception).
      try {
        Files.createDirectories(logs);
        logsReady = true;
      } catch (IOException e) {
        // The executor reports a failed run when it cannot write its log; tried again next time.
      }
    }
    return logs.resolve(runId + "@" + attempt + ".log");
  }

  /** Removes a settled run's work directory (never following links) and prunes old logs. */
  void cleanUp(String runId, long attempt) {
    deleteTree(workDirectory(runId, attempt));
    pruneLogs();
  }

  private void pruneLogs() {
    if (!Files.isDirectory(logs)) {
      return;
    }
    List<Path> all = new ArrayList<>();
    try (Stream<Path> s = Files.list(logs)) {
      s.forEach(all::add);
    } catch (IOException e) {
      return;
    }
    if (all.size() <= keptLogs * 2) {
      return; // prune in batches, not on every run
    }
    all.sort(Comparator.comparingLong(RunPaths::modified));
    for (int i = 0; i < all.size() - keptLogs; i++) {
      try {
        Files.deleteIfExists(all.get(i));
      } catch (IOException ignored) {
        // best effort
      }
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException ignored) {
      // best effort: a leftover directory is harmless and visible to operators
    }
  }
}
