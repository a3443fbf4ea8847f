package io.ql3.worker.controlplane;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Records every leak Netty's detector reports (surefire runs it at PARANOID), so a test fails on a
 * leak instead of only logging it. Installed before any Netty buffer class is used (Harness static
 * init).
 */
final class LeakRecorder {
  private static final List<String> LEAKS = new ArrayList<>();
  private static boolean installed;

  private LeakRecorder() {}

  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(
        new ResourceLeakDetectorFactory() {
          @Override
          @SuppressWarnings(
              "deprecation") // abstract in Netty 4.2: the one every factory must implement
          public <T> ResourceLeakDetector<T> newResourceLeakDetector(
              Class<T> resource, int samplingInterval, long maxActive) {
            return newResourceLeakDetector(resource, samplingInterval);
          }

          @Override
          public <T> ResourceLeakDetector<T> newResourceLeakDetector(
              Class<T> resource, int samplingInterval) {
            return new ResourceLeakDetector<T>(resource, samplingInterval) {
              @Override
              protected void reportTracedLeak(String type, String records) {
                record(type + records);
                super.reportTracedLeak(type, records);
              }

              @Override
              protected void reportUntracedLeak(String type) {
                record(type);
                super.reportUntracedLeak(type);
              }
            };
          }
        });
  }

  private static synchronized void record(String leak) {
    LEAKS.add(leak);
  }

  /** Collects garbage, lets the detectors run, and fails on any leak reported so far. */
  static void assertNoLeaks() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      // Detectors report on the next tracked allocation.
      for (ByteBuf b :
          new ByteBuf[] {
            PooledByteBufAllocator.DEFAULT.buffer(16),
            UnpooledByteBufAllocator.DEFAULT.buffer(16),
            io.netty.buffer.Unpooled.buffer(16)
          }) {
        b.release();
      }
    }
    synchronized (LeakRecorder.class) {
      if (!LEAKS.isEmpty()) {
        List<String> copy = new ArrayList<>(LEAKS);
        LEAKS.clear();
        throw new AssertionError("Netty reported " + copy.size() + " leak(s): " + copy);
      }
    }
  }
}
