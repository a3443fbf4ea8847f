package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.OpaqueSpec;
import io.ql3.worker.runtime.exec.ExecutionContext;
import io.ql3.worker.runtime.exec.Executor;
import io.ql3.worker.runtime.exec.PreparedRun;
import io.ql3.worker.runtime.exec.TestEchoExecutor;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test executor found through ServiceLoader like a user's own: it records every run it is asked
 * to prepare (runId and attempt) and succeeds at once with the output "ran".
 */
public final class CountingExecutor implements Executor {
  /**
   * Every run prepared, in order (ServiceLoader constructs the executor: a static is the only way
   * out).
   */
  static final List<String> PREPARED = new CopyOnWriteArrayList<>();

  /** The run itself is the SPI-only test executor's, with the output "ran". */
  private static final TestEchoExecutor ECHO = new TestEchoExecutor();

  private static final OpaqueSpec RAN =
      new OpaqueSpec(
          "test-echo", new JsonValue.JsonObject(Map.of("text", new JsonValue.JsonString("ran"))));

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
    return ECHO.prepare(RAN, context);
  }

  /** A class loader whose ServiceLoader finds exactly this executor (beside the built-ins). */
  static ClassLoader loader(Path dir) throws IOException {
    Path services = dir.resolve("services");
    Files.writeString(
        Files.createDirectories(services).resolve(Executor.class.getName()),
        CountingExecutor.class.getName() + "\n");
    URL url = services.resolve(Executor.class.getName()).toUri().toURL();
    return new ClassLoader(CountingExecutor.class.getClassLoader()) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        return name.equals("META-INF/services/" + Executor.class.getName())
            ? Collections.enumeration(List.of(url))
            : super.getResources(name);
      }
    };
  }
}
