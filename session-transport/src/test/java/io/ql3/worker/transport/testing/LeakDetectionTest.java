package io.ql3.worker.transport.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proves the leak extension would fail a test: a deliberate leak is detected (and consumed here).
 */
class LeakDetectionTest {
  @Test
  void paranoidLevelIsActive() {
    assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
  }

  @Test
  void aLeakedBufferIsReported() {
    leakOne();
    List<String> reports = LeakFailingExtension.collect();
    assertThat(reports).anySatisfy(r -> assertThat(r).contains("LEAK").contains("leakOne"));
  }

  private static void leakOne() {
    ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.directBuffer(16);
    buf.writeLong(42); // recorded access; never released, and the reference is dropped
  }
}
