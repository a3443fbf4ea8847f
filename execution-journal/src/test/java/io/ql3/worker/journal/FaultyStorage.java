package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A real storage whose writes, forces or file creations fail on demand, counting calls. */
final class FaultyStorage implements Storage {
  private final Storage inner;
  volatile boolean failWrite;
  volatile boolean failForce;
  volatile boolean diskFull;
  final AtomicInteger writes = new AtomicInteger();
  final AtomicInteger forces = new AtomicInteger();

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
        if (failWrite) {
          throw new IOException("injected write error (EIO)");
        }
        if (diskFull && pos + src.remaining() > f.size()) {
          throw new IOException("No space left on device");
        }
        f.write(src, pos);
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
}
