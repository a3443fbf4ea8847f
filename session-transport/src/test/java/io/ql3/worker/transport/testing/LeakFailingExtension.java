package io.ql3.worker.transport.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Makes a Netty buffer leak FAIL the test class: installs (once per JVM, before any buffer class is
 * initialised; registered by auto-detection) a leak detector factory whose detectors record every
 * report, and after each test class forces GC, lets the detectors poll, and fails on any report.
 *
 * <p>Netty's leak detector is a static of the buffer classes, so the sink is JVM-wide by necessity.
 */
public final class LeakFailingExtension implements BeforeAllCallback, AfterAllCallback {
  private static final List<String> REPORTS = new ArrayList<>();

  static {
    // Netty only reports when its logger has ERROR enabled; a NOP slf4j binding would hide leaks.
    InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    synchronized (REPORTS) {
      REPORTS.clear();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    List<String> leaks = collect();
    if (!leaks.isEmpty()) {
      throw new AssertionError(
          leaks.size()
              + " Netty buffer leak(s) in "
              + context.getDisplayName()
              + ":\n"
              + String.join("\n----\n", leaks));
    }
  }

  /** Forces collection and detector polling; returns and clears the reports seen so far. */
  public static List<String> collect() {
    for (int i = 0; i < 8; i++) {
      System.gc();
      System.runFinalization();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      // Detectors poll their reference queue when a new resource is tracked.
      ByteBuf a = UnpooledByteBufAllocator.DEFAULT.directBuffer(1);
      a.release();
      ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1);
      b.release();
      ByteBuf c = UnpooledByteBufAllocator.DEFAULT.heapBuffer(1);
      c.release();
    }
    synchronized (REPORTS) {
      List<String> out = new ArrayList<>(REPORTS);
      REPORTS.clear();
      return out;
    }
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<T> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      synchronized (REPORTS) {
        REPORTS.add("LEAK " + resourceType + ":\n" + records);
      }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      synchronized (REPORTS) {
        REPORTS.add("LEAK " + resourceType + " (untraced)");
      }
    }
  }
}
