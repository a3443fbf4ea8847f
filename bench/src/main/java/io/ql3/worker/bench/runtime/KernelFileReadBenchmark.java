package io.ql3.worker.bench.runtime;

import io.ql3.worker.runtime.isolation.Cgroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One read of a small kernel file, as the end of every run does several (the run cgroup's {@code
 * cgroup.events}, {@code cpu.stat}, {@code memory.peak}, {@code memory.events}, the three {@code
 * /proc/sysvipc} tables): {@code Files.readString} of the resolved path, as {@link Cgroup#read} did
 * until 2026-12-05, against {@link Cgroup#read}. Meant for the edge agent's interpreter: {@code
 * -jvmArgs "-Xint -XX:+UseSerialGC"} (docs/perf/edge.md, "Sixteenth pass"). Reads real files of
 * this host: the cgroup v2 root's {@code cpu.stat} and {@code cgroup.stat} (under {@code
 * /sys/fs/cgroup} or, on a hybrid host, {@code /sys/fs/cgroup/unified}), and {@code
 * /proc/sysvipc/shm}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KernelFileReadBenchmark {
  @Param({"cpu.stat", "cgroup.stat", "/proc/sysvipc/shm"})
  public String file;

  private Cgroup dir;
  private String name;
  private Path parent;

  @Setup
  public void setup() throws IOException {
    Path root = Path.of("/sys/fs/cgroup/unified");
    if (!Files.exists(root.resolve("cgroup.procs"))) {
      root = Path.of("/sys/fs/cgroup");
    }
    Path p = file.startsWith("/") ? Path.of(file) : root.resolve(file);
    dir = new Cgroup(p.getParent());
    name = p.getFileName().toString();
    parent = p.getParent();
    if (!Files.isReadable(p)) {
      throw new IOException("cannot read " + p + " on this host");
    }
  }

  @Benchmark
  public String filesReadString() throws IOException {
    return Files.readString(parent.resolve(name), StandardCharsets.US_ASCII);
  }

  @Benchmark
  public String cgroupRead() throws IOException {
    return dir.read(name);
  }
}
