package io.ql3.worker.bench.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The bare group-commit loop, the ceiling for the journal: JMH threads are the T producers, each op
 * queues one 256-byte record and waits until it is forced; one writer drains the queue, writes
 * once, forces once. No framing, CRC, state or segments. Run with {@code -t 1,4,16,64}.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 3)
public class BareGroupCommitBenchmark {
  private static final long SIZE = 256L << 20;
  private static final CompletableFuture<Void> STOP = new CompletableFuture<>();

  private Path dir;
  private FileChannel ch;
  private final ArrayBlockingQueue<CompletableFuture<Void>> queue = new ArrayBlockingQueue<>(4096);
  private Thread writer;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = BenchFiles.tempDir("bare-group-commit");
    ch = BenchFiles.preallocated(dir.resolve("bare.dat"), SIZE);
    writer = new Thread(this::writeLoop, "bench-bare-writer");
    writer.start();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    queue.put(STOP);
    writer.join();
    ch.close();
    BenchFiles.deleteTree(dir);
  }

  private void writeLoop() {
    ByteBuffer buf = ByteBuffer.allocateDirect(4096 * 256);
    byte[] record = new byte[256];
    List<CompletableFuture<Void>> batch = new ArrayList<>();
    long pos = 0;
    try {
      while (true) {
        batch.add(queue.take());
        queue.drainTo(batch);
        boolean stop = batch.remove(STOP);
        buf.clear();
        for (int i = 0; i < batch.size(); i++) {
          buf.put(record);
        }
        buf.flip();
        if (pos + buf.remaining() > SIZE) {
          pos = 0;
        }
        long p = pos;
        while (buf.hasRemaining()) {
          p += ch.write(buf, p);
        }
        ch.force(false);
        pos = p;
        for (CompletableFuture<Void> f : batch) {
          f.complete(null);
        }
        batch.clear();
        if (stop) {
          return;
        }
      }
    } catch (Exception e) {
      batch.forEach(f -> f.completeExceptionally(e));
    }
  }

  @Benchmark
  public void appendDurable256() throws Exception {
    CompletableFuture<Void> f = new CompletableFuture<>();
    queue.put(f);
    f.get();
  }
}
