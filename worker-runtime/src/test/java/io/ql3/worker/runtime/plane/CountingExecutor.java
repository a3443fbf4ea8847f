package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.runtime.exec.ExecutionContext;
import io.ql3.worker.runtime.exec.ExecutionResult;
import io.ql3.worker.runtime.exec.Executor;
import io.ql3.worker.runtime.exec.PreparedRun;
import io.ql3.worker.runtime.exec.RunHandle;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test executor found through ServiceLoader like a user's own: it records every run it is asked
 * to prepare (runId and attempt) and succeeds at once with the output "ran".
 */
public final class CountingExecutor implements Executor {
  /** Every run prepared, in order (ServiceLoader constructs the executor: a static is the only way out). */
  static final List<String> PREPARED = new CopyOnWriteArrayList<>();

  public CountingExecutor() {}

  @Override
  public String name() {
    return "counting";
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void validate(ExecutorSpec spec) {}

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    PREPARED.add(context.runId().value() + " " + context.attempt());
    byte[] out = "ran".getBytes(StandardCharsets.UTF_8);
    CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
    Instant[] started = new Instant[1];
    RunHandle handle = new RunHandle() {
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

  /** A class loader whose ServiceLoader finds exactly this executor (beside the built-ins). */
  static ClassLoader loader(Path dir) throws IOException {
    Path services = dir.resolve("services");
    Files.writeString(Files.createDirectories(services).resolve(Executor.class.getName()),
        CountingExecutor.class.getName() + "\n");
    URL url = services.resolve(Executor.class.getName()).toUri().toURL();
    return new ClassLoader(CountingExecutor.class.getClassLoader()) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        return name.equals("META-INF/services/" + Executor.class.getName())
            ? Collections.enumeration(List.of(url)) : super.getResources(name);
      }
    };
  }
}
