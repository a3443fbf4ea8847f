package io.ql3.worker.bench.transport;

import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.credentials.Credentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-request credential check when no file changed: no read; four stats at most (target ≤ 5
 * µs).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CredentialCheckBenchmark {
  /** 250: the default (stat result reused for 250 ms); 0: four stats on every call. */
  @Param({"250", "0"})
  public long checkIntervalMs;

  private Path dir;
  private CredentialProvider provider;
  private long generation;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("bench-credentials");
    new BenchPki().writeClientFiles(dir);
    provider =
        CredentialProvider.load(
            new CredentialFiles(
                dir.resolve("client.pem"),
                dir.resolve("client.key"),
                dir.resolve("ca.pem"),
                dir.resolve("token")),
            BenchPki.WORKER,
            Clock.systemUTC(),
            CredentialProvider.Settings.defaults()
                .withCheckInterval(java.time.Duration.ofMillis(checkIntervalMs)));
    generation = provider.tls().generation();
  }

  @Benchmark
  public Credentials unchangedCheck() {
    return provider.current();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (provider.tls().generation() != generation) {
      throw new IllegalStateException("credentials changed during the benchmark");
    }
  }
}
