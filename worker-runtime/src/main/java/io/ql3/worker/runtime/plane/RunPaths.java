package io.ql3.worker.runtime.plane;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /** Clean-ups since the logs directory was last listed. */
  private int sinceListing;

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

  /**
   * Keeps the newest {@code keptLogs} logs, pruning in batches: the directory is listed once every
   * {@code keptLogs} clean-ups (a listing per settled run was 7 % of the cadence thread at 300
   * runs/s), and pruned when it holds more than twice that; so it holds at most three times.
   */
  private void pruneLogs() {
    if (++sinceListing < Math.max(1, keptLogs)) {
      return;
    }
    sinceListing = 0;
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
    // Each modification time read once (a comparator reading them stats each file log n times).
    List<Map.Entry<Long, Path>> byAge = new ArrayList<>(all.size());
    for (Path p : all) {
      byAge.add(Map.entry(modified(p), p));
    }
    byAge.sort(Map.Entry.comparingByKey());
    for (int i = 0; i < byAge.size() - keptLogs; i++) {
      try {
        Files.deleteIfExists(byAge.get(i).getValue());
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

  /**
   * Deepest directory level removed; a deeper tree is left (and logged by nobody: it is the run's).
   */
  private static final int MAX_DEPTH = 256;

  /**
   * Removes a run's tree relative to open directory handles ({@code openat}/{@code unlinkat}
   * through {@link SecureDirectoryStream}), never following a link: a process of the run that swaps
   * a directory for a symlink meanwhile cannot make the agent delete outside the tree. What cannot
   * be removed (a directory the run made unreadable) is left, the rest goes on.
   */
  private static void deleteTree(Path dir) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (DirectoryStream<Path> parent = Files.newDirectoryStream(dir.getParent())) {
      if (parent instanceof SecureDirectoryStream<Path> secure) {
        deleteEntry(secure, dir.getFileName(), 0);
      }
    } catch (IOException ignored) {
      // best effort: a leftover directory is harmless and visible to operators
    }
  }

  private static void deleteEntry(SecureDirectoryStream<Path> parent, Path name, int depth) {
    boolean directory;
    try {
      directory =
          parent
              .getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
              .readAttributes()
              .isDirectory();
    } catch (IOException e) {
      return;
    }
    if (!directory) {
      try {
        parent.deleteFile(name);
      } catch (IOException ignored) {
        // left
      }
      return;
    }
    if (depth < MAX_DEPTH) {
      try (SecureDirectoryStream<Path> child =
          parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
        List<Path> names = new ArrayList<>();
        for (Path p : child) {
          names.add(p.getFileName());
        }
        for (Path n : names) {
          deleteEntry(child, n, depth + 1);
        }
      } catch (IOException ignored) {
        // not readable by the agent: left
      }
    }
    try {
      parent.deleteDirectory(name);
    } catch (IOException ignored) {
      // not empty: left
    }
  }
}
