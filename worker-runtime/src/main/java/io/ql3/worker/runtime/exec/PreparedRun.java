package io.ql3.worker.runtime.exec;

/**
 * A run that is ready to start but has not started: nothing of it executes yet. The runtime makes
 * "run started" durable in its journal, then calls {@link #launch()}. Exactly one of {@link
 * #launch()} or {@link #discard()} is called, once.
 */
public interface PreparedRun {

  /**
   * Starts the run. Never throws for a failure of the run itself: a run that could not start (e.g.
   * the operating system refused to create the process) yields a handle whose result is already
   * complete and {@code failed}, with no pid.
   *
   * @throws IllegalStateException when called twice or after {@link #discard()}
   */
  RunHandle launch();

  /** Releases what {@link Executor#prepare} acquired (open files), without starting anything. */
  void discard();
}
