package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import java.util.Objects;

/**
 * {@link Executor#prepare} could not make the run ready (its working directory escapes the work
 * directory through a symlink, the program does not exist, the log cannot be created...). Nothing
 * was started: the runtime completes the run {@code failed} with {@link #failure()} and {@code
 * exitCode} null, without ever recording it as started.
 */
public final class PrepareFailedException extends Exception {

  private static final long serialVersionUID = 1L;

  private final transient Failure failure;

  public PrepareFailedException(Failure failure) {
    this(failure, null);
  }

  public PrepareFailedException(Failure failure, Throwable cause) {
    super(Objects.requireNonNull(failure, "failure").code() + ": " + failure.message(), cause);
    this.failure = failure;
  }

  /** The failure to report. */
  public Failure failure() {
    return failure;
  }
}
