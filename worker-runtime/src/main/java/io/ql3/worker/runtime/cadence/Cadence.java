package io.ql3.worker.runtime.cadence;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The one periodic timer of the agent: a single named thread that calls {@link Step#step(long)}
 * once per period, or earlier when {@link #wake()} is called (a long poll returned, a run finished,
 * a credential file changed). Steps never overlap: they all run on this thread, so the session
 * coordinator and the execution plane it drives need no timer and no thread of their own.
 *
 * <p>A wake during a step makes the next step start right after it (wakes coalesce: ten wakes
 * during one step cause one extra step, not ten). A step that throws is reported to the handler and
 * the cadence goes on: one bad tick must not stop heartbeats.
 *
 * <p>The thread is the caller's ({@link #runHere}): one that would otherwise only wait, as the
 * agent's main thread, lends itself, so the cadence costs no thread of its own. It carries the
 * cadence's name while it steps.
 */
public final class Cadence implements AutoCloseable {
  /** What the cadence drives. {@code nowNanos} is the {@link Ticker} time the step started. */
  @FunctionalInterface
  public interface Step {
    void step(long nowNanos) throws Exception;
  }

  private final Duration period;
  private final Ticker ticker;
  private final Step step;
  private final Thread.UncaughtExceptionHandler onError;
  private final String threadName;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signal = lock.newCondition();
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile Thread thread; // set once, by runHere()
  private boolean woken;
  private boolean stopped;

  public Cadence(
      String threadName,
      Duration period,
      Ticker ticker,
      Step step,
      Thread.UncaughtExceptionHandler onError) {
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("cadence period must be positive: " + period);
    }
    this.period = period;
    this.ticker = Objects.requireNonNull(ticker);
    this.step = Objects.requireNonNull(step);
    this.onError = Objects.requireNonNull(onError);
    this.threadName = Objects.requireNonNull(threadName);
  }

  /**
   * Runs the steps on the calling thread, the first at once, until {@link #close()} (from a step or
   * any other thread) or until {@code done} says so after a step; renames the thread to the
   * cadence's name meanwhile. A cadence runs once.
   */
  public void runHere(BooleanSupplier done) {
    Thread t = Thread.currentThread();
    lock.lock();
    try {
      if (thread != null) {
        throw new IllegalStateException("cadence already ran");
      }
      thread = t;
    } finally {
      lock.unlock();
    }
    String name = t.getName();
    try {
      t.setName(threadName);
      steps(done);
    } finally {
      ended.countDown();
      t.setName(name);
    }
  }

  /** Asks for a step as soon as possible (coalesced with other wakes). Safe from any thread. */
  public void wake() {
    lock.lock();
    try {
      woken = true;
      signal.signal();
    } finally {
      lock.unlock();
    }
  }

  /** True when called from the cadence thread itself. */
  public boolean isCadenceThread() {
    return Thread.currentThread() == thread;
  }

  private void steps(BooleanSupplier done) {
    long next = ticker.nanoTime();
    while (true) {
      lock.lock();
      try {
        while (!stopped && !woken) {
          long wait = next - ticker.nanoTime();
          if (wait <= 0) {
            break;
          }
          signal.awaitNanos(wait);
        }
        if (stopped) {
          return;
        }
        woken = false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        lock.unlock();
      }
      long now = ticker.nanoTime();
      try {
        step.step(now);
      } catch (Throwable t) {
        onError.uncaughtException(thread, t);
      }
      if (done.getAsBoolean()) {
        return;
      }
      next = now + period.toNanos();
    }
  }

  /**
   * Stops the steps after the one in progress, if any, and waits for it to end, however long that
   * step takes (a step may be waiting for an fsync: whatever the caller releases next, such as the
   * journal, must not be released under it). From a step itself: the steps end after it.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      stopped = true;
      signal.signal();
    } finally {
      lock.unlock();
    }
    if (thread != null && !isCadenceThread()) {
      try {
        ended.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
