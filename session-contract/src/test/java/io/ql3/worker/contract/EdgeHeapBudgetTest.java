package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A pull answer within its 1 MiB cap made of ~500,000 tiny JSON values, parsed in a child JVM that
 * runs with the edge profile's own flags (read from {@code scripts/jvm-flags.sh}, the one place
 * that chooses them: {@code -Xmx16m}, {@code -XX:+ExitOnOutOfMemoryError}, ...). The value budget
 * refuses it as a contract violation; without it the tree needs more than the edge heap.
 */
class EdgeHeapBudgetTest {
  /** The child: builds the answer, parses it three times, prints the violation reason of each. */
  public static final class Probe {
    public static void main(String[] args) {
      byte[] body = tinyValues();
      for (int i = 0; i < 3; i++) {
        try {
          PullResponse.parse(body);
          System.out.println("parsed");
        } catch (ContractViolation e) {
          System.out.println(e.reason());
        }
      }
    }
  }

  static byte[] tinyValues() {
    String head = "{\"generation\":7,\"nextPullAfterMs\":0,\"offers\":[";
    String tail =
        "],\"pullId\":\"01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f\",\"schema\":\"qinglong/worker-execution-pull@v1\"}";
    int n = (Operation.PULL.responseCap() - head.length() - tail.length() + 1) / 2;
    StringBuilder b = new StringBuilder(Operation.PULL.responseCap()).append(head);
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "0" : ",0");
    }
    byte[] body = b.append(tail).toString().getBytes(StandardCharsets.US_ASCII);
    assertThat(body.length).isLessThanOrEqualTo(Operation.PULL.responseCap());
    return body;
  }

  @Test
  void aPullAnswerOfHalfAMillionTinyValuesIsRefusedWithinTheEdgeHeap() throws Exception {
    assertThat(tinyValues().length).isGreaterThan(Operation.PULL.responseCap() - 200);
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElseThrow());
    cmd.addAll(edgeFlags());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Probe.class.getName());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    assertThat(text.lines()).as(text).containsExactly("OVER_CAP", "OVER_CAP", "OVER_CAP");
  }

  private static List<String> edgeFlags() throws IOException, InterruptedException {
    Path script = Path.of("..", "scripts", "jvm-flags.sh").toAbsolutePath().normalize();
    assertThat(Files.exists(script)).as(script.toString()).isTrue();
    Process p =
        new ProcessBuilder("sh", "-c", ". \"$0\"; ql3_jvm_flags edge", script.toString()).start();
    String flags = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(flags).contains("-Xmx16m", "-XX:+ExitOnOutOfMemoryError");
    return List.of(flags.split("\\s+"));
  }
}
