package io.ql3.worker.runtime.exec;

import io.ql3.worker.runtime.isolation.RunCgroup;
import io.ql3.worker.runtime.isolation.RunUsage;

/**
 * Every process of one run, and the {@code kill(2)}-level means to end them: no process is started
 * to send a signal. With a cgroup that is the run's cgroup (nothing escapes it); without one, the
 * run's process group (a process that leaves the group is out of reach: see docs/executors.md,
 * "Isolation").
 */
interface RunProcesses {

  /** SIGTERM to every process of the run. */
  void terminate();

  /** SIGKILL to every process of the run. */
  void kill();

  /** True when no live process of the run is left. */
  boolean isEmpty();

  /** Reads what the run used and releases what holds it (removes its cgroup); once, at the end. */
  RunUsage release();

  static RunProcesses of(RunCgroup cgroup) {
    return new RunProcesses() {
      @Override
      public void terminate() {
        cgroup.terminate();
      }

      @Override
      public void kill() {
        cgroup.kill();
      }

      @Override
      public boolean isEmpty() {
        return cgroup.isEmpty();
      }

      @Override
      public RunUsage release() {
        RunUsage usage = cgroup.usage();
        cgroup.remove();
        return usage;
      }
    };
  }

  static RunProcesses ofGroup(long pgid) {
    return new ProcessGroup(pgid);
  }
}
