package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.OpaqueSpec;
import io.ql3.worker.contract.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A third-party style executor, written against the public SPI only and registered in
 * src/test/resources/META-INF/services: spec {@code {"text":"…"}}, succeeds with that text as its
 * output.
 */
public final class TestEchoExecutor implements Executor {

  public TestEchoExecutor() {}

  @Override
  public String name() {
    return "test-echo";
  }

  @Override
  public String version() {
    return "0.1.0+test";
  }

  @Override
  public void validate(ExecutorSpec spec) throws SpecRejectedException {
    if (!(spec instanceof OpaqueSpec o)
        || o.spec().members().size() != 1
        || !(o.spec().members().get("text") instanceof JsonValue.JsonString)) {
      throw new SpecRejectedException("test-echo needs exactly {\"text\": string}");
    }
  }

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    String text = ((JsonValue.JsonString) ((OpaqueSpec) spec).spec().members().get("text")).value();
    byte[] out = text.getBytes(StandardCharsets.UTF_8);
    CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
    Instant[] started = new Instant[1];
    RunHandle handle =
        new RunHandle() {
          @Override
          public OptionalLong pid() {
            return OptionalLong.empty();
          }

          @Override
          public Instant startedAt() {
            return started[0];
          }

          @Override
          public CompletableFuture<ExecutionResult> result() {
            return result;
          }
        };
    return new PreparedRun() {
      @Override
      public RunHandle launch() {
        started[0] = context.clock().now();
        result.complete(ExecutionResult.of(Outcome.SUCCEEDED, null, null, 0, out.length, out));
        return handle;
      }

      @Override
      public void discard() {}
    };
  }
}
