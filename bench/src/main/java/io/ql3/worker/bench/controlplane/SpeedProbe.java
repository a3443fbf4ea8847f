package io.ql3.worker.bench.controlplane;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;

/**
 * How fast this machine runs right now. Three fixed loops are timed in thread CPU time, so waiting
 * for a core does not count, but a slower core does: a latency-bound arithmetic chain (clock
 * speed), a dependent random walk over 64 MiB (memory latency and contention: 8 MiB fitted in the
 * L3 of the idle machine, so it mostly showed the benchmark's own cache pressure), and SHA-256 over
 * 64 KiB (throughput-bound, many instructions per cycle, like TLS and HTTP/2 code; meant to notice
 * a busy hyperthread sibling on the host, which a latency-bound chain barely does: not yet shown
 * to). On the shared 2-core machines here whole runs were seen to cost 1.5x more CPU per request in
 * both processes at once, while the arithmetic chain did not move: the probe is a record of what it
 * measured, not a filter for windows.
 */
final class SpeedProbe {
  private static final int ALU_ITERATIONS = 2_000_000;
  private static final int WALK_STEPS =
      50_000; // 10-20 ms: the probe runs inside the measured client
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * One random cycle through all slots (Sattolo's shuffle): every step is a dependent cache miss.
   */
  private final int[] next = new int[16 * 1024 * 1024]; // 64 MiB: more than this EPYC's L3

  private final byte[] block = new byte[64 * 1024];
  private final MessageDigest sha256;

  /** The loops' results, kept in fields so the JIT cannot drop the loops. */
  private long sink;

  private int at;

  SpeedProbe() {
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
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

  /** Thread CPU microseconds of SHA-256 over 64 KiB, 8 times. */
  long hash() {
    long t0 = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < 8; i++) {
      sha256.update(block);
      block[i] ^= sha256.digest()[0];
    }
    return (THREADS.getCurrentThreadCpuTime() - t0) / 1_000;
  }

  /** Medians of {@code n} runs of each loop: {alu, memory, hash}, thread CPU microseconds. */
  long[] median(int n) {
    long[][] v = new long[3][n];
    for (int i = 0; i < n; i++) {
      v[0][i] = alu();
      v[1][i] = memory();
      v[2][i] = hash();
    }
    long[] out = new long[3];
    for (int k = 0; k < 3; k++) {
      Arrays.sort(v[k]);
      out[k] = v[k][n / 2];
    }
    return out;
  }

  /** One of each loop: {alu, memory, hash}. */
  long[] once() {
    return new long[] {alu(), memory(), hash()};
  }
}
