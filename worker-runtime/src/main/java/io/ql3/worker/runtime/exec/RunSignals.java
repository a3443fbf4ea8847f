package io.ql3.worker.runtime.exec;

/**
 * The signals that end one process run, in their one order: first every process of the run ({@link
 * RunProcesses}: its cgroup, else its process group), then its main process directly, which may not
 * have entered its group or cgroup yet and is then alone. The main process is signalled through its
 * {@link ProcessHandle}: {@link Process#destroy()} would also close the output pipe.
 */
final class RunSignals {

  private RunSignals() {}

  /** SIGTERM to every process of the run, then to its main process. */
  static void terminate(RunProcesses processes, Process main) {
    processes.terminate();
    main.toHandle().destroy();
  }

  /** SIGKILL to every process of the run, then to its main process. */
  static void kill(RunProcesses processes, Process main) {
    processes.kill();
    main.toHandle().destroyForcibly();
  }

  /**
   * For a bug while ending the run: SIGKILL to the main process (when started and alive, through
   * {@link Process}), then to every process of the run (when known), whose processes are then
   * released: its cgroup is removed when it is empty already, else by the next start's sweep.
   */
  static void killAfterFailure(Process main, RunProcesses processes) {
    if (main != null && main.isAlive()) {
      main.destroyForcibly();
    }
    if (processes != null) {
      processes.kill();
      processes.release(); // removes the cgroup when it is empty already; else the next start's
      // sweep does
    }
  }
}
