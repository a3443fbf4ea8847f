package io.ql3.worker.runtime.plane;

import java.util.function.BooleanSupplier;

/** Waits for a state the system must reach; the bound only ends a broken run. */
final class PlaneHarnessAwait {
  private PlaneHarnessAwait() {}

  static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(10);
    }
  }
}
