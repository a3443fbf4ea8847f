package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.runtime.exec.ExecutionContext;
import io.ql3.worker.runtime.exec.ExecutionResult;
import io.ql3.worker.runtime.exec.Executor;
import io.ql3.worker.runtime.exec.PreparedRun;
import io.ql3.worker.runtime.exec.RunHandle;
import java.io.IOException;
import java.net.URL;
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
 * A test executor with a bug: {@code prepare} throws a RuntimeException for a spec {@code
 * {"boom":true}}; any other spec prepares a no-op run. It records what it prepared, launched and
 * discarded.
 */
public final class BrittleExecutor implements Executor {
  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  public BrittleExecutor() {}

  @Override
  public String name() {
    return "brittle";
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void validate(ExecutorSpec spec) {}

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    String run = context.runId().value();
    if (spec.toJson().members().containsKey("boom")) {
      throw new IllegalStateException("executor bug while preparing " + run);
    }
    EVENTS.add("prepared " + run);
    return new PreparedRun() {
      @Override
      public RunHandle launch() {
        EVENTS.add("launched " + run);
        Instant at = Instant.now();
        CompletableFuture<ExecutionResult> done =
            CompletableFuture.completedFuture(ExecutionResult.succeeded(0));
        return new RunHandle() {
          @Override
          public OptionalLong pid() {
            return OptionalLong.empty();
          }

          @Override
          public Instant startedAt() {
            return at;
          }

          @Override
          public CompletableFuture<ExecutionResult> result() {
            return done;
          }
        };
      }

      @Override
      public void discard() {
        EVENTS.add("discarded " + run);
      }
    };
  }

  /** A class loader whose ServiceLoader finds exactly this executor (beside the built-ins). */
  static ClassLoader loader(Path dir) throws IOException {
    Path services = dir.resolve("brittle-services");
    Files.writeString(
        Files.createDirectories(services).resolve(Executor.class.getName()),
        BrittleExecutor.class.getName() + "\n");
    URL url = services.resolve(Executor.class.getName()).toUri().toURL();
    return new ClassLoader(BrittleExecutor.class.getClassLoader()) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        return name.equals("META-INF/services/" + Executor.class.getName())
            ? Collections.enumeration(List.of(url))
            : super.getResources(name);
      }
    };
  }
}
