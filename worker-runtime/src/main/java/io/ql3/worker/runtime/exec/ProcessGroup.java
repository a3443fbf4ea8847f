package io.ql3.worker.runtime.exec;

import io.ql3.worker.runtime.isolation.RunUsage;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's process group (pgid = the main process's pid, made by {@code setsid}), for runs without a
 * cgroup. The JDK signals single processes only, so members are found in {@code /proc} (field 5 of
 * {@code /proc/PID/stat}) and signalled one by one through {@link ProcessHandle}, which checks each
 * pid's start time (no signal to a recycled pid). A scan reads every process's stat file, so the
 * run's end costs one scan when nothing is left (the common case), not two.
 */
final class ProcessGroup implements RunProcesses {

  private static final Path PROC = Path.of("/proc");

  private final long pgid;
  private final byte[] buffer = new byte[512];
  private boolean emptyAfterKill;

  ProcessGroup(long pgid) {
    if (pgid <= 1) {
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    this.pgid = pgid;
  }

  @Override
  public synchronized void terminate() {
    for (ProcessHandle h : members()) {
      h.destroy();
    }
  }

  @Override
  public synchronized void kill() {
    List<ProcessHandle> found = members();
    for (ProcessHandle h : found) {
      h.destroyForcibly();
    }
    emptyAfterKill = found.isEmpty();
  }

  @Override
  public synchronized boolean isEmpty() {
    // A kill that found nobody: nothing can join a group whose members are all gone.
    return emptyAfterKill || members().isEmpty();
  }

  @Override
  public RunUsage release() {
    return RunUsage.UNKNOWN;
  }

  /** Live members of the group (zombies excluded). */
  List<ProcessHandle> members() {
    List<ProcessHandle> out = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(PROC)) {
      for (Path p : ds) {
        long pid = digits(p.getFileName().toString());
        if (pid <= 0 || pid == self) {
          continue;
        }
        if (inGroup(p.resolve("stat"))) {
          ProcessHandle.of(pid).ifPresent(out::add);
        }
      }
    } catch (IOException e) {
      // /proc unreadable: nothing found
    }
    return out;
  }

  /** True when the stat file shows a live process whose pgid is ours. */
  private boolean inGroup(Path stat) {
    int n;
    try (FileInputStream in = new FileInputStream(stat.toString())) {
      n = in.read(buffer);
    } catch (IOException e) {
      return false; // exited meanwhile
    }
    // "pid (comm) S ppid pgrp ...": comm may hold spaces and ')', so start after the last ')'.
    int i = n - 1;
    while (i >= 0 && buffer[i] != ')') {
      i--;
    }
    if (i < 0 || i + 2 >= n) {
      return false;
    }
    byte state = buffer[i + 2];
    if (state == 'Z' || state == 'X') {
      return false;
    }
    int field = 0;
    long value = 0;
    for (int j = i + 3; j < n; j++) {
      byte b = buffer[j];
      if (b == ' ') {
        if (field == 2) {
          return value == pgid;
        }
        field++;
        value = 0;
      } else if (field == 2 && b >= '0' && b <= '9') {
        value = value * 10 + (b - '0');
      }
    }
    return false;
  }

  private static long digits(String name) {
    long v = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
