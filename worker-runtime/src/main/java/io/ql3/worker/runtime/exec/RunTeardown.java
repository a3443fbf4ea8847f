package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.RunId;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.RunAccount;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;

/**
 * Gives back what one process run held: its output log (closed), its run account (released, or
 * retired when something of the run is left) and its work directory (removed as that account). A
 * uid goes to another run only once nothing of the previous run is left under it. Logs under {@link
 * ProcessRun}'s logger name.
 */
final class RunTeardown {

  private static final System.Logger LOG = System.getLogger(ProcessRun.class.getName());

  private RunTeardown() {}

  /**
   * For a run that never started (discarded, already cancelled, or its launch failed): closes its
   * output log, then gives its account back (nothing ran as it).
   */
  static void releaseUnstarted(
      RotatingLog log, Isolation isolation, ProcessLaunch launch, RunId runId) {
    closeLog(log, runId);
    launch.account().ifPresent(isolation::releaseAccount); // nothing ran as it
  }

  /** Closes the run's output log; a failure is logged, not thrown. */
  private static void closeLog(RotatingLog log, RunId runId) {
    try {
      log.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "run " + runId + ": closing output log failed: " + e);
    }
  }

  /**
   * With a run account: removes the work directory as that account, then gives the account back, or
   * retires it when something is left (the next run with that uid could read it). The run completes
   * after this, so its slot frees only once nothing of it is left.
   */
  static CompletableFuture<Void> removeWorkDirectory(
      Isolation isolation, ProcessLaunch launch, RunId runId, boolean processesMayRemain) {
    if (launch.account().isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    RunAccount account = launch.account().get();
    return isolation
        .removeWorkDirectory(account, launch.workDir(), processesMayRemain)
        .handle(
            (gone, error) -> {
              if (Boolean.TRUE.equals(gone)) {
                isolation.releaseAccount(account);
              } else {
                isolation.retireAccount(account);
                LOG.log(
                    Level.ERROR,
                    "run "
                        + runId
                        + ": its work directory "
                        + launch.workDir()
                        + ", what its uid left beside it in runs/, in /tmp, /var/tmp, /dev/shm or System V IPC, or a process of it could not be"
                        + " removed as "
                        + account
                        + "; that uid is not given to another run until the agent restarts");
              }
              return null;
            });
  }
}
