package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The listing of {@code runs/} at the end of every isolated process run ({@link
 * RunLeftovers#besideWorkDirectory}), for a runs directory of {@code entries} work directories (the
 * runs that exist together). In this package because the method is the isolation's own. Meant for
 * the edge agent's interpreter too: {@code -jvmArgs "-Xint -XX:+UseSerialGC"}
 * (docs/performance.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RunsListingBenchmark {
  @Param({"2", "8", "64"})
  int entries;

  Path runs;
  Path own;
  long uid;

  @Setup
  public void setUp() throws IOException {
    runs = Files.createTempDirectory("ql3-bench-runs");
    for (int i = 0; i < entries; i++) {
      Files.createDirectory(runs.resolve("run-" + i + "@1"));
    }
    own = runs.resolve("run-0@1");
    uid = (Integer) Files.getAttribute(own, "unix:uid");
  }

  @TearDown
  public void tearDown() throws IOException {
    try (var all = Files.list(runs)) {
      for (Path p : all.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(runs);
  }

  @Benchmark
  public List<String> besideWorkDirectory() {
    return RunLeftovers.besideWorkDirectory(own, uid);
  }
}
