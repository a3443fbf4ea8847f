package io.ql3.worker.bench.contract;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Complement to the JMH run on a shared, loaded machine: the same heartbeat pair measured in thread
 * CPU time (time the thread was actually on a core), so time spent descheduled by other processes
 * does not count. Run: {@code java -cp ... io.ql3.worker.bench.contract.HeartbeatCpuTime}.
 */
public final class HeartbeatCpuTime {
  private HeartbeatCpuTime() {}

  public static void main(String[] args) throws Exception {
    HeartbeatContractBenchmark b = new HeartbeatContractBenchmark();
    b.setup();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    int ops = 1_000_000;
    long sink = 0;
    for (int round = 0; round < 10; round++) {
      long cpu0 = mx.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      for (int i = 0; i < ops; i++) {
        sink += b.pairWithoutBlackhole();
      }
      long cpu = mx.getCurrentThreadCpuTime() - cpu0;
      long wall = System.nanoTime() - wall0;
      System.out.printf(
          "round %d: %.1f ns/op cpu, %.1f ns/op wall%n",
          round, (double) cpu / ops, (double) wall / ops);
    }
    System.out.println("(sink " + sink + ")");
  }
}
