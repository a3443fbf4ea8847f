package io.ql3.worker.bench.controlplane;

import java.util.Arrays;

/**
 * Request latencies in log2 buckets of microseconds (bucket i holds [2^i, 2^(i+1)) us), added to
 * from the event loops and printed as upper bounds of the p50, p90, p99 and p99.9 latency.
 */
final class LatencyHistogram {
  private final long[] histogram = new long[64]; // guarded by itself

  /** Counts one request that took {@code us} microseconds (at least 1). */
  void add(long us) {
    int bucket = 63 - Long.numberOfLeadingZeros(us);
    synchronized (histogram) {
      histogram[bucket]++;
    }
  }

  void clear() {
    synchronized (histogram) {
      Arrays.fill(histogram, 0);
    }
  }

  /** Prints {@code latency pQ < N us} for each quantile: the upper bound of its bucket. */
  void print() {
    synchronized (histogram) {
      long total = 0;
      for (long v : histogram) {
        total += v;
      }
      long seen = 0;
      for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
        seen = 0;
        for (int i = 0; i < histogram.length; i++) {
          seen += histogram[i];
          if (seen >= q * total) {
            System.out.printf("  latency p%s < %d us%n", q * 100, 1L << (i + 1));
            break;
          }
        }
      }
    }
  }
}
