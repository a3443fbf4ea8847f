package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.ExecutorInfo;
import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.OpaqueSpec;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunId;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutorRegistryTest {

  @TempDir Path tmp;

  private static final ClassLoader TEST_LOADER = ExecutorRegistryTest.class.getClassLoader();

  private static ExecutorRegistry load(List<String> enabled, ClassLoader loader) throws Exception {
    return ExecutorRegistry.load(enabled, ProcessExecutorSettings.defaults(), loader);
  }

  @Test
  void advertisesOnlyEnabledExecutorsSortedByName() throws Exception {
    ExecutorRegistry r = load(List.of("sleep", "process", "noop", "test-echo"), TEST_LOADER);
    assertThat(r.advertised())
        .containsExactly(
            new ExecutorInfo("noop", "1"),
            new ExecutorInfo("process", "1"),
            new ExecutorInfo("sleep", "1"),
            new ExecutorInfo("test-echo", "0.1.0+test"));
    assertThat(r.find("fail")).as("installed but not enabled").isEmpty();
    assertThat(r.installed()).containsExactly("fail", "noop", "process", "sleep", "test-echo");
  }

  @Test
  void nothingIsEnabledByDefault() throws Exception {
    ExecutorRegistry r = load(List.of(), TEST_LOADER);
    assertThat(r.advertised()).isEmpty();
    assertThat(r.find("process")).isEmpty();
    assertThat(r.find("noop")).isEmpty();
  }

  @Test
  void serviceLoaderFindsAThirdPartyExecutorThatRunsThroughTheSpi() throws Exception {
    ExecutorRegistry r = load(List.of("test-echo"), TEST_LOADER);
    Executor echo = r.find("test-echo").orElseThrow();
    assertThat(echo).isInstanceOf(TestEchoExecutor.class);

    ExecutorSpec good =
        ExecutorSpec.parse("test-echo", "{\"text\":\"héllo\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(good).isInstanceOf(OpaqueSpec.class);
    echo.validate(good);
    ExecutionContext ctx =
        new ExecutionContext(
            new RunId("echo-1"),
            1,
            "k",
            tmp.resolve("w"),
            tmp.resolve("l"),
            Duration.ofSeconds(1),
            new CancellationSignal(),
            new ManualClock());
    ExecutionResult result = echo.prepare(good, ctx).launch().result().getNow(null);
    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(result.outputTail()).isEqualTo("héllo");
    assertThat(result.outputBytes()).isEqualTo(6);

    ExecutorSpec bad =
        new OpaqueSpec(
            "test-echo", new JsonValue.JsonObject(Map.of("txt", new JsonValue.JsonString("x"))));
    assertThatThrownBy(() -> echo.validate(bad)).isInstanceOf(SpecRejectedException.class);
  }

  @Test
  void enablingAnUninstalledExecutorIsAConfigurationError() {
    assertThatThrownBy(() -> load(List.of("process", "container"), TEST_LOADER))
        .isInstanceOf(ExecutorConfigurationException.class)
        .hasMessageContaining("container")
        .hasMessageContaining("installed: fail, noop, process, sleep, test-echo");
  }

  @Test
  void twoExecutorsWithOneNameAreAConfigurationError() throws Exception {
    ClassLoader loader = loaderProviding(DuplicateNoopExecutor.class);
    assertThatThrownBy(() -> load(List.of("noop"), loader))
        .isInstanceOf(ExecutorConfigurationException.class)
        .hasMessageContaining("two installed executors are named noop");
  }

  @Test
  void anInvalidNameIsAConfigurationError() throws Exception {
    ClassLoader loader = loaderProviding(BadNameExecutor.class);
    assertThatThrownBy(() -> load(List.of(), loader))
        .isInstanceOf(ExecutorConfigurationException.class)
        .hasMessageContaining(BadNameExecutor.class.getName());
  }

  @Test
  void aProviderThatCannotBeLoadedIsAConfigurationError() throws Exception {
    ClassLoader loader = loaderProviding("io.ql3.worker.runtime.exec.NoSuchExecutorClass");
    assertThatThrownBy(() -> load(List.of(), loader))
        .isInstanceOf(ExecutorConfigurationException.class)
        .hasMessageContaining("cannot load an installed executor");
  }

  @Test
  void processNeedsSetsidOnTheHost() {
    ProcessExecutorSettings missing =
        new ProcessExecutorSettings(
            java.util.Set.of(),
            1 << 20,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            "/usr/bin:/bin",
            "C.UTF-8",
            java.util.Set.of(),
            Path.of("/nonexistent/setsid"));
    assertThatThrownBy(() -> ExecutorRegistry.load(List.of("process"), missing, TEST_LOADER))
        .isInstanceOf(ExecutorConfigurationException.class)
        .hasMessageContaining("/nonexistent/setsid");
  }

  private ClassLoader loaderProviding(Class<?> provider) throws Exception {
    return loaderProviding(provider.getName());
  }

  /** A class loader adding one more services file, the way a user's jar would. */
  private ClassLoader loaderProviding(String providerClass) throws Exception {
    Path root = Files.createDirectories(tmp.resolve("plugin-" + System.nanoTime()));
    Path services = Files.createDirectories(root.resolve("META-INF/services"));
    Files.writeString(services.resolve(Executor.class.getName()), providerClass + "\n");
    return new URLClassLoader(new URL[] {root.toUri().toURL()}, TEST_LOADER);
  }

  /** Claims the built-in noop's name. */
  public static final class DuplicateNoopExecutor implements Executor {
    @Override
    public String name() {
      return "noop";
    }

    @Override
    public String version() {
      return "9";
    }

    @Override
    public void validate(ExecutorSpec spec) {}

    @Override
    public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
      throw new UnsupportedOperationException();
    }
  }

  /** A name the contract refuses. */
  public static final class BadNameExecutor implements Executor {
    @Override
    public String name() {
      return "Bad_Name";
    }

    @Override
    public String version() {
      return "1";
    }

    @Override
    public void validate(ExecutorSpec spec) {}

    @Override
    public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
      throw new UnsupportedOperationException();
    }
  }
}
