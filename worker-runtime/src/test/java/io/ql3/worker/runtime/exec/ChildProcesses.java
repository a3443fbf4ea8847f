package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;

/** Test helpers that look at real processes through /proc and wait for files children write. */
final class ChildProcesses {

  private ChildProcesses() {}

  /** The state letter of /proc/PID/stat ("R", "S", "Z"...), or "gone" when there is no such pid. */
  static String state(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      int close = stat.lastIndexOf(')');
      return stat.substring(close + 2, close + 3);
    } catch (NoSuchFileException e) {
      return "gone";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Field 5 of /proc/PID/stat: the process group id. */
  static long processGroup(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(after[2]);
  }

  /**
   * True while the process exists and is not dead. A killed orphan is reparented to PID 1, which
   * reaps it; until then (and for good in sandboxes whose PID 1 does not reap) it is a zombie:
   * dead, holding no resources but its pid.
   */
  static boolean isRunning(long pid) {
    String s = state(pid);
    return !s.equals("gone") && !s.equals("Z") && !s.equals("X");
  }

  /** Waits until a child has written {@code file} (non-empty); polling, never asserting on time. */
  static String awaitFile(Path file) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      if (Files.exists(file)) {
        String content = Files.readString(file);
        if (content.endsWith("\n")) {
          return content.trim();
        }
      }
      if (System.nanoTime() > deadline) {
        fail("child never wrote " + file);
      }
      Thread.sleep(10);
    }
  }

  /** Waits until the process is no longer running (it may be a zombie awaiting PID 1). */
  static boolean awaitNotRunning(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (isRunning(pid)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }
}
