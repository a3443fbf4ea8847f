package io.ql3.worker.bench.controlplane;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * How fast this machine's CPU runs right now. The same fixed arithmetic loop (no memory traffic) is timed in
 * thread CPU time, so waiting for a core does not count, but a slower core does (a busy hyperthread sibling
 * or a neighbour on the host). On the shared 2-core machines here that factor was seen to vary by up to 1.7x
 * from minute to minute; a benchmark window is only comparable to another if this factor is.
 */
final class SpeedProbe {
  private static final int ITERATIONS = 2_000_000;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private long sink;

  /** Thread CPU microseconds of one fixed loop. */
  long once() {
    long t0 = THREADS.getCurrentThreadCpuTime();
    long x = System.nanoTime() | 1;
    for (int i = 0; i < ITERATIONS; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    sink += x;
    return (THREADS.getCurrentThreadCpuTime() - t0) / 1_000;
  }

  /** The median of {@code n} loops, in thread CPU microseconds. */
  long median(int n) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = once();
    }
    Arrays.sort(v);
    return v[n / 2];
  }

  /** Keeps the loop's result observable so the JIT cannot drop it. */
  long sink() {
    return sink;
  }
}
