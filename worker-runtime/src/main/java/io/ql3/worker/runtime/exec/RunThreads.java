package io.ql3.worker.runtime.exec;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads process runs block on: each run's output pump (the JDK offers only blocking reads on
 * a child's pipe) and the wait for its main process's exit. One daemon thread per blocked task, as
 * many as tasks block at once; a thread that finished its task takes the next one, and one left
 * idle for {@link #KEEP_ALIVE_SECONDS} ends. While it runs a task a thread carries that task's name
 * ({@code ql3-exec-output-<runId>}, {@code ql3-exec-exit-<runId>}); idle it is {@code ql3-exec-N}.
 *
 * <p>Why not a thread per task: a new thread, and the JDK's {@code Process.onExit()} step (a new
 * thread per call on a host with fewer than 3 CPUs, its {@code CompletableFuture} default
 * executor), cost about half a millisecond of CPU each on an interpreted edge agent
 * (docs/perf/edge.md, "Fourteenth pass").
 */
final class RunThreads {

  /** How long an idle thread waits for another task before it ends. */
  static final long KEEP_ALIVE_SECONDS = 10;

  /**
   * The stack of each thread: a read loop, or a wait and then the run's end (its teardown and the
   * result's dependents, which must not block: docs/executors.md), as the output pump always had.
   */
  static final long STACK_BYTES = 256 * 1024;

  private static final String IDLE_NAME = "ql3-exec";

  private final ThreadPoolExecutor pool;

  RunThreads() {
    AtomicInteger made = new AtomicInteger();
    ThreadFactory factory =
        task -> {
          Thread t = new Thread(null, task, IDLE_NAME + "-" + made.incrementAndGet(), STACK_BYTES);
          t.setDaemon(true);
          return t;
        };
    // No queue: a task that finds no idle thread gets a new one, since each blocks until its
    // process or pipe ends.
    pool =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            KEEP_ALIVE_SECONDS,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            factory);
  }

  /** Runs {@code task} on a thread of its own, named {@code name} while it runs. */
  void execute(String name, Runnable task) {
    pool.execute(
        () -> {
          Thread self = Thread.currentThread();
          String idle = self.getName();
          self.setName(name);
          try {
            task.run();
          } finally {
            self.setName(idle);
          }
        });
  }
}
