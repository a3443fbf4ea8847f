package io.ql3.worker.runtime.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether stdout is journald's stream: systemd sets {@code JOURNAL_STREAM=DEV:INODE} to the device
 * and inode of the stream it connected, and a process whose stdout is still that stream may prefix
 * its lines with {@code <N>} priorities (sd-daemon(3)). A redirected stdout (a file, a pipe) does
 * not match and gets plain lines.
 */
public final class JournalStream {
  private JournalStream() {}

  /** True when {@code journalStream} (the variable's value) names the file open as {@code fd}. */
  public static boolean matches(String journalStream, Path fd) {
    if (journalStream == null) {
      return false;
    }
    int colon = journalStream.indexOf(':');
    if (colon <= 0) {
      return false;
    }
    try {
      long dev = Long.parseLong(journalStream.substring(0, colon));
      long ino = Long.parseLong(journalStream.substring(colon + 1));
      Map<String, Object> a = Files.readAttributes(fd, "unix:dev,ino");
      return ((Number) a.get("dev")).longValue() == dev
          && ((Number) a.get("ino")).longValue() == ino;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  /** For this process: {@code JOURNAL_STREAM} against stdout ({@code /proc/self/fd/1}). */
  public static boolean isStdout() {
    return matches(System.getenv("JOURNAL_STREAM"), Path.of("/proc/self/fd/1"));
  }
}
