package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real storage whose writes, forces or file creations fail on demand, counting calls; and whose
 * writer-thread writes can be held at a gate.
 */
final class FaultyStorage implements Storage {
  private final Storage inner;
  volatile boolean failWrite;
  volatile boolean failForce;
  volatile boolean diskFull;
  final AtomicInteger writes = new AtomicInteger();
  final AtomicInteger forces = new AtomicInteger();

  /** When set, a write on the journal's writer thread waits here before it is made. */
  volatile CountDownLatch writerGate;

  /** Counted down when a writer-thread write reaches the gate. */
  final CountDownLatch writerAtGate = new CountDownLatch(1);

  /** Writes that were made and returned. */
  final AtomicInteger writesMade = new AtomicInteger();

  FaultyStorage(Storage inner) {
    this.inner = inner;
  }

  @Override
  public List<String> list() throws IOException {
    return inner.list();
  }

  @Override
  public StorageFile open(String name, boolean create) throws IOException {
    StorageFile f = inner.open(name, create);
    return new StorageFile() {
      @Override
      public int read(ByteBuffer dst, long pos) throws IOException {
        return f.read(dst, pos);
      }

      @Override
      public void write(ByteBuffer src, long pos) throws IOException {
        writes.incrementAndGet();
        CountDownLatch gate = writerGate;
        if (gate != null && Thread.currentThread().getName().startsWith("ql3-journal-writer")) {
          writerAtGate.countDown();
          awaitUninterruptibly(gate);
        }
        if (failWrite) {
          throw new IOException("injected write error (EIO)");
        }
        if (diskFull && pos + src.remaining() > f.size()) {
          throw new IOException("No space left on device");
        }
        f.write(src, pos);
        writesMade.incrementAndGet();
      }

      @Override
      public void force(boolean metadata) throws IOException {
        forces.incrementAndGet();
        if (failForce) {
          throw new IOException("injected fsync error (EIO)");
        }
        f.force(metadata);
      }

      @Override
      public long size() throws IOException {
        return f.size();
      }

      @Override
      public void close() throws IOException {
        f.close();
      }
    };
  }

  @Override
  public void rename(String from, String to) throws IOException {
    inner.rename(from, to);
  }

  @Override
  public void delete(String name) throws IOException {
    inner.delete(name);
  }

  @Override
  public void syncDirectory() throws IOException {
    inner.syncDirectory();
  }

  @Override
  public long usableSpace() throws IOException {
    return diskFull ? 0 : inner.usableSpace();
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
