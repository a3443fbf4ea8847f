package io.ql3.worker.runtime.exec;

import io.ql3.worker.runtime.isolation.RunUsage;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's process group (pgid = the main process's pid, made by {@code setsid}), for runs without
 * a cgroup. The JDK signals single processes only, so members are found in {@code /proc} (field 5
 * of {@code /proc/PID/stat}) and signalled one by one through {@link ProcessHandle}, which checks
 * each pid's start time (no signal to a recycled pid).
 */
final class ProcessGroup implements RunProcesses {

  private static final Path PROC = Path.of("/proc");

  private final long pgid;

  ProcessGroup(long pgid) {
    if (pgid <= 1) {
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    this.pgid = pgid;
  }

  @Override
  public void terminate() {
    for (ProcessHandle h : members()) {
      h.destroy();
    }
  }

  @Override
  public void kill() {
    for (ProcessHandle h : members()) {
      h.destroyForcibly();
    }
  }

  @Override
  public boolean isEmpty() {
    return members().isEmpty();
  }

  @Override
  public RunUsage release() {
    return RunUsage.UNKNOWN;
  }

  /** Live members of the group (zombies excluded). */
  List<ProcessHandle> members() {
    List<ProcessHandle> out = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path p : ds) {
        long pid;
        try {
          pid = Long.parseLong(p.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        if (pid == self) {
          continue;
        }
        String stat;
        try {
          stat = Files.readString(p.resolve("stat"));
        } catch (IOException e) {
          continue; // exited meanwhile
        }
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length()) {
          continue;
        }
        String[] f = stat.substring(close + 2).split(" ", 4);
        if (f.length < 3 || f[0].equals("Z") || f[0].equals("X")) {
          continue;
        }
        if (Long.parseLong(f[2]) == pgid) {
          ProcessHandle.of(pid).ifPresent(out::add);
        }
      }
    } catch (IOException e) {
      // /proc unreadable: nothing found
    }
    return out;
  }
}
