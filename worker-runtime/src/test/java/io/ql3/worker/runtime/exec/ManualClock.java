package io.ql3.worker.runtime.exec;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.PriorityQueue;

/** An {@link ExecutionClock} driven by hand: time moves only in {@link #advance}. */
final class ManualClock implements ExecutionClock {

  private static final Instant BASE = Instant.parse("2026-11-29T21:00:00Z");

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          Comparator.comparingLong((Task t) -> t.due).thenComparingLong(t -> t.seq));
  private long nanos;
  private long seq;

  @Override
  public synchronized Instant now() {
    return BASE.plusNanos(nanos);
  }

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  @Override
  public synchronized Scheduled schedule(Duration delay, Runnable task) {
    Task t = new Task(nanos + delay.toNanos(), seq++, task);
    tasks.add(t);
    return () -> {
      synchronized (ManualClock.this) {
        tasks.remove(t);
      }
    };
  }

  /** Moves time forward, running every task that falls due, in order, at its due time. */
  void advance(Duration d) {
    long target;
    synchronized (this) {
      target = nanos + d.toNanos();
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due > target) {
          nanos = target;
          return;
        }
        tasks.poll();
        nanos = next.due;
      }
      next.task.run();
    }
  }

  synchronized int pendingTasks() {
    return tasks.size();
  }

  private static final class Task {
    final long due;
    final long seq;
    final Runnable task;

    Task(long due, long seq, Runnable task) {
      this.due = due;
      this.seq = seq;
      this.task = task;
    }
  }
}
