package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A one-shot request to cancel one run, owned by the runtime and handed to the executor in its
 * {@link ExecutionContext}. The first {@link #cancel(Failure)} wins; later calls change nothing.
 * The failure given is the one a run that ends {@code cancelled} reports, so the runtime (which
 * knows why: a server {@code cancelRuns}, a drain timeout) owns the category and code.
 *
 * <p>Thread-safe. Listeners run on the thread that cancels (or at once, on the registering thread,
 * when the signal is already cancelled); they must be quick and must not block.
 */
public final class CancellationSignal {

  /** The failure {@link #cancel()} uses: the server asked for it, so retrying is pointless. */
  public static final Failure DEFAULT_REASON =
      Failures.permanent("cancelled", "cancelled on request");

  private final Object lock = new Object();
  private Failure reason; // guarded by lock
  private List<Runnable> listeners = new ArrayList<>(2); // guarded by lock; null once cancelled

  /** Cancels with {@link #DEFAULT_REASON}. */
  public boolean cancel() {
    return cancel(DEFAULT_REASON);
  }

  /**
   * Cancels the run. Returns true when this call did it (false when it was already cancelled).
   *
   * @param reason the failure a cancelled run reports
   */
  public boolean cancel(Failure reason) {
    Objects.requireNonNull(reason, "reason");
    List<Runnable> toRun;
    synchronized (lock) {
      if (this.reason != null) {
        return false;
      }
      this.reason = reason;
      toRun = listeners;
      listeners = null;
    }
    for (Runnable r : toRun) {
      r.run();
    }
    return true;
  }

  /** True once cancelled. */
  public boolean isCancelled() {
    synchronized (lock) {
      return reason != null;
    }
  }

  /** The failure given to the winning {@link #cancel(Failure)}, if any. */
  public Optional<Failure> reason() {
    synchronized (lock) {
      return Optional.ofNullable(reason);
    }
  }

  /**
   * Runs {@code listener} once when the signal is cancelled: at once (on this thread) when it is
   * already. Closing the returned registration removes a listener that has not run yet.
   */
  public Registration onCancel(Runnable listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      if (reason == null) {
        listeners.add(listener);
        return () -> {
          synchronized (lock) {
            if (listeners != null) {
              listeners.remove(listener);
            }
          }
        };
      }
    }
    listener.run();
    return () -> {};
  }

  /** Removes a listener; idempotent. */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}
