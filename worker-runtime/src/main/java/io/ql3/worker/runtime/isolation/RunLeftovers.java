package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run uid left outside its work directory, in the places every uid may write: the entries it
 * owns at the top of {@code /tmp}, {@code /var/tmp} and {@code /dev/shm} (under systemd the unit's
 * private {@code /tmp}; {@code /dev/shm} is the host's), and its System V shared memory segments,
 * message queues and semaphore sets ({@code /proc/sysvipc}). The next run with the same uid could
 * read all of it, so it goes with the work directory (as that uid, {@link Isolation}). Not covered:
 * what it put deeper in another uid's world-writable directory, POSIX message queues ({@code
 * /dev/mqueue}), kernel keyrings (the unit forbids the keyring system calls).
 *
 * <p>Each is a removal argument: an absolute path, or {@code ipc-shm:ID}, {@code ipc-msg:ID},
 * {@code ipc-sem:ID}.
 */
final class RunLeftovers {

  static final List<Path> SHARED_DIRS =
      List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"));

  private RunLeftovers() {}

  /** Reads only directory entries' owners and three small /proc files: a few syscalls per run. */
  static List<String> of(long uid, Path proc, List<Path> sharedDirs) {
    List<String> found = new ArrayList<>();
    for (Path dir : sharedDirs) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
        for (Path e : entries) {
          try {
            if ((Integer) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
              found.add(e.toString());
            }
          } catch (IOException | RuntimeException gone) {
            // removed meanwhile
          }
        }
      } catch (IOException | RuntimeException absent) {
        // no such directory here
      }
    }
    ipc(proc.resolve("sysvipc/shm"), 1, "ipc-shm:", uid, found);
    ipc(proc.resolve("sysvipc/msg"), 1, "ipc-msg:", uid, found);
    ipc(proc.resolve("sysvipc/sem"), 1, "ipc-sem:", uid, found);
    return found;
  }

  /** One {@code /proc/sysvipc} table: a header naming the columns, one object per line. */
  private static void ipc(Path table, int idColumn, String prefix, long uid, List<String> found) {
    List<String> lines;
    try {
      lines = Files.readAllLines(table);
    } catch (IOException | RuntimeException absent) {
      return;
    }
    if (lines.isEmpty()) {
      return;
    }
    List<String> header = List.of(lines.get(0).trim().split("\\s+"));
    int uidColumn = header.indexOf("uid");
    if (uidColumn < 0) {
      return;
    }
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.trim().split("\\s+");
      if (f.length > Math.max(uidColumn, idColumn) && f[uidColumn].equals(Long.toString(uid))) {
        found.add(prefix + f[idColumn]);
      }
    }
  }
}
