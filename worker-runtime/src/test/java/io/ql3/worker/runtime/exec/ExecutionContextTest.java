package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.RunId;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExecutionContextTest {

  private static ExecutionContext withKey(String key) {
    return new ExecutionContext(
        new RunId("demo-1"),
        1,
        key,
        Path.of("/nonexistent/work"),
        Path.of("/nonexistent/log"),
        Duration.ofSeconds(1),
        new CancellationSignal(),
        new ManualClock());
  }

  @Test
  void anIdempotencyKeyIsOneTo128PrintableAsciiCharacters() {
    String printable = " ~!azAZ09";
    String longest = "k".repeat(128);

    assertThat(withKey(printable).idempotencyKey()).isEqualTo(printable);
    assertThat(withKey(longest).idempotencyKey()).isEqualTo(longest);
    for (String bad :
        new String[] {"", "k".repeat(129), "tab\t", "del\u007f", "caf\u00e9", "\u2028"}) {
      assertThatThrownBy(() -> withKey(bad))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("idempotencyKey must be 1..128 printable ASCII characters");
    }
  }
}
