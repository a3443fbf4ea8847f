package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The cgroup of one run attempt. The run's first process moves itself into it before the run's own
 * code executes, so every process the run ever starts (daemonized, double-forked, reparented) is
 * inside it. Signals go to its members with {@code kill(2)} through {@link ProcessHandle} (no
 * process per signal), SIGKILL through {@code cgroup.kill}; the run is over only when the cgroup is
 * empty, then it is removed.
 */
public final class RunCgroup {

  private static final System.Logger LOG = System.getLogger(RunCgroup.class.getName());

  private final Cgroup cgroup;

  RunCgroup(Cgroup cgroup) {
    this.cgroup = cgroup;
  }

  public Path dir() {
    return cgroup.dir();
  }

  /** The file the run's entry helper writes its own pid into. */
  public Path procsFile() {
    return cgroup.procsFile();
  }

  /** SIGTERM to every process of the run (members that appear meanwhile are caught by the kill). */
  public void terminate() {
    try {
      for (long pid : cgroup.pids()) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "cannot signal the processes of " + cgroup + ": " + e);
    }
  }

  /**
   * SIGKILL to every process of the run, including any forked while this runs. A cgroup that {@code
   * cgroup.events} says is empty is left alone (one read instead of a write, at the end of every
   * run): nothing of it is alive to fork. A process that enters it after that read is not killed
   * here, as it would not be by a {@code cgroup.kill} written at that moment; the run's end polls
   * until the cgroup is empty and kills again ({@code ProcessRun}). When the file cannot be read
   * the kill is sent anyway.
   */
  public void kill() {
    try {
      OptionalLong populated = cgroup.keyed("cgroup.events", "populated");
      if (populated.isPresent() && populated.getAsLong() == 0) {
        return;
      }
      if (cgroup.canKill()) {
        cgroup.kill();
        return;
      }
      // Before Linux 5.14: kill what is there, a few rounds to catch forks in flight.
      for (int round = 0; round < 8; round++) {
        var pids = cgroup.pids();
        if (pids.isEmpty()) {
          return;
        }
        for (long pid : pids) {
          ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "cannot kill the processes of " + cgroup + ": " + e);
    }
  }

  /** True when no live process of the run is left. An unreadable cgroup counts as empty. */
  public boolean isEmpty() {
    try {
      return !cgroup.populated();
    } catch (IOException e) {
      return true;
    }
  }

  /** Peak memory, CPU time and memory-limit kills of the whole run. */
  public RunUsage usage() {
    return RunUsage.of(cgroup);
  }

  /** Removes the (empty) cgroup; a failure is logged and the directory left for the next sweep. */
  public void remove() {
    try {
      cgroup.remove();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot remove " + cgroup + " (removed at the next start): " + e);
    }
  }

  @Override
  public String toString() {
    return cgroup.toString();
  }
}
