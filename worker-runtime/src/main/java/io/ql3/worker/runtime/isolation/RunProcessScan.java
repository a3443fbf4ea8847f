package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The live processes of run uids, read from {@code /proc} (the owner of {@code /proc/PID} is the
 * process's uid, also for a non-dumpable one). A zombie holds a pid and nothing else, so it does
 * not count: its parent (here often a PID 1 that does not reap) has not collected it yet.
 */
final class RunProcessScan {

  private RunProcessScan() {}

  /** Pids of the live processes whose uid is in {@code range}; empty without a readable /proc. */
  static List<Long> live(Path proc, RunAccounts range) {
    List<Long> pids = new ArrayList<>();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path pid : all) {
        try {
          int uid = (Integer) Files.getAttribute(pid, "unix:uid", LinkOption.NOFOLLOW_LINKS);
          if (range.containsUid(uid) && !isZombie(pid)) {
            pids.add(Long.parseLong(pid.getFileName().toString()));
          }
        } catch (IOException | RuntimeException gone) {
          // exited meanwhile
        }
      }
    } catch (IOException e) {
      // no /proc to look at: nothing known to be running
    }
    return pids;
  }

  /** The first live process of {@code range} as "pid P (uid U, comm)", or null. */
  static String describeFirst(Path proc, RunAccounts range) {
    for (long pid : live(proc, range)) {
      Path dir = proc.resolve(Long.toString(pid));
      try {
        int uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        String comm = Files.readString(dir.resolve("comm")).strip();
        return "pid " + pid + " (uid " + uid + ", " + comm + ")";
      } catch (IOException | RuntimeException gone) {
        // exited meanwhile: the next one
      }
    }
    return null;
  }

  private static boolean isZombie(Path pid) {
    try {
      String stat = Files.readString(pid.resolve("stat"));
      int end = stat.lastIndexOf(')');
      char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
      return state == 'Z' || state == 'X';
    } catch (IOException | RuntimeException gone) {
      return true; // exited meanwhile
    }
  }
}
