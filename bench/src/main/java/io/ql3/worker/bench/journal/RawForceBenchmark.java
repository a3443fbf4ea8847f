package io.ql3.worker.bench.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The physical limit: one 256-byte write + force(false) per operation on a preallocated file, one
 * thread. Everything else is measured against this, in the same run and JDK.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 3)
public class RawForceBenchmark {
  private static final long SIZE = 64L << 20;
  private Path dir;
  private FileChannel ch;
  private final ByteBuffer record = ByteBuffer.allocateDirect(256);
  private long pos;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = BenchFiles.tempDir("raw-force");
    ch = BenchFiles.preallocated(dir.resolve("raw.dat"), SIZE);
    for (int i = 0; i < 256; i++) {
      record.put(i, (byte) i);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    ch.close();
    BenchFiles.deleteTree(dir);
  }

  @Benchmark
  public void writeAndForce256() throws IOException {
    record.clear();
    ch.write(record, pos);
    ch.force(false);
    pos = (pos + 256) % SIZE;
  }
}
