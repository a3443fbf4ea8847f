package io.ql3.worker.bench.controlplane;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Linux's /proc says about the machine and a process: the load average, a process's CPU time,
 * and its threads' CPU time by kind. Readers never fail: what cannot be read is {@code "?"}, 0 or
 * missing.
 */
final class ProcStats {
  private ProcStats() {}

  /** The 1, 5 and 15 minute load averages from /proc/loadavg. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  /**
   * utime+stime ticks of a process's threads by kind: {@code io} (ql3cp-io event loops), {@code
   * jit} (compiler threads), {@code gc+vm}, {@code other}, and {@code total} (the process, from its
   * own stat).
   */
  static Map<String, Long> threadTicks(String pid) {
    Map<String, Long> out = new TreeMap<>();
    out.put("total", cpuTicks(pid));
    if (pid == null) {
      return out;
    }
    try (var tasks = Files.list(Path.of("/proc", pid, "task"))) {
      for (Path t : tasks.toList()) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          String kind =
              name.startsWith("ql3cp-io")
                  ? "io"
                  : name.contains("CompilerThre")
                      ? "jit"
                      : name.startsWith("VM Thread") || name.startsWith("GC") ? "gc+vm" : "other";
          out.merge(kind, ticks, Long::sum);
          if (kind.equals("io")) {
            // How the event loops spent it: kernel ticks, and how often they blocked (epoll_wait
            // with
            // nothing to do) or were preempted: requests per wake-up decide much of the cost per
            // request.
            out.merge("io-sys", Long.parseLong(f[12]), Long::sum);
            for (String line : Files.readAllLines(t.resolve("status"))) {
              if (line.startsWith("voluntary_ctxt_switches:")) {
                out.merge(
                    "io-blocked",
                    Long.parseLong(line.substring(line.indexOf(':') + 1).trim()),
                    Long::sum);
              } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                out.merge(
                    "io-preempted",
                    Long.parseLong(line.substring(line.indexOf(':') + 1).trim()),
                    Long::sum);
              }
            }
          }
        } catch (Exception e) {
          // the thread ended meanwhile
        }
      }
    } catch (Exception e) {
      // no such process
    }
    return out;
  }

  /** utime+stime of a process in clock ticks (1/100 s on Linux), from /proc; 0 when unknown. */
  static long cpuTicks(String pid) {
    if (pid == null) {
      return 0;
    }
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (Exception e) {
      return 0;
    }
  }
}
