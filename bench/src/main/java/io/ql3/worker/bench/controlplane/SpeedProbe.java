package io.ql3.worker.bench.controlplane;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;

/**
 * How fast this machine runs right now. Two fixed loops are timed in thread CPU time, so waiting for a core
 * does not count, but a slower core does: an arithmetic loop (no memory traffic: a busy hyperthread sibling,
 * a slower clock) and a dependent random walk over 8 MiB (cache and memory contention from a neighbour on the
 * host, which the arithmetic loop does not see). On the shared 2-core machines here both were seen to vary
 * from minute to minute; a benchmark window is only comparable to another if these are.
 */
final class SpeedProbe {
  private static final int ALU_ITERATIONS = 2_000_000;
  private static final int WALK_STEPS = 200_000;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** One random cycle through all slots (Sattolo's shuffle): every step is a dependent cache miss. */
  private final int[] next = new int[2 * 1024 * 1024];
  private long sink;
  private int at;

  SpeedProbe() {
    for (int i = 0; i < next.length; i++) {
      next[i] = i;
    }
    Random random = new Random(42);
    for (int i = next.length - 1; i > 0; i--) {
      int j = random.nextInt(i);
      int t = next[i];
      next[i] = next[j];
      next[j] = t;
    }
  }

  /** Thread CPU microseconds of the arithmetic loop. */
  long alu() {
    long t0 = THREADS.getCurrentThreadCpuTime();
    long x = System.nanoTime() | 1;
    for (int i = 0; i < ALU_ITERATIONS; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    sink += x;
    return (THREADS.getCurrentThreadCpuTime() - t0) / 1_000;
  }

  /** Thread CPU microseconds of the memory walk. */
  long memory() {
    long t0 = THREADS.getCurrentThreadCpuTime();
    int p = at;
    for (int i = 0; i < WALK_STEPS; i++) {
      p = next[p];
    }
    at = p;
    return (THREADS.getCurrentThreadCpuTime() - t0) / 1_000;
  }

  /** Medians of {@code n} runs of each loop: {alu, memory}, thread CPU microseconds. */
  long[] median(int n) {
    long[] a = new long[n];
    long[] m = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = alu();
      m[i] = memory();
    }
    Arrays.sort(a);
    Arrays.sort(m);
    return new long[] {a[n / 2], m[n / 2]};
  }

  /** Keeps the loops' results observable so the JIT cannot drop them. */
  long sink() {
    return sink + at;
  }
}
