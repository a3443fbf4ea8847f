package io.ql3.worker.runtime.exec;

import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A launched run. Cancellation and the timeout go through the run's {@link ExecutionContext}; the
 * handle only reports.
 */
public interface RunHandle {

  /**
   * The operating-system process id of the run's main process (which also leads the run's process
   * group), for the journal. Empty when the executor runs no process, or the process could not be
   * created.
   */
  OptionalLong pid();

  /** When the run was launched, from the context's clock. */
  Instant startedAt();

  /**
   * Completes once, with the run's result, after the run has ended and (for a process) every member
   * of its process group has been signalled and its output captured. Never completes exceptionally.
   * Dependent stages run on executor-internal threads: they must not block.
   */
  CompletableFuture<ExecutionResult> result();
}
