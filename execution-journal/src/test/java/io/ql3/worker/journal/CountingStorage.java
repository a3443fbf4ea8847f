package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Counts forces and writes of a real storage. */
final class CountingStorage implements Storage {
  final Storage inner;
  final AtomicLong forces = new AtomicLong();
  final AtomicLong writes = new AtomicLong();

  CountingStorage(Storage inner) {
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
        f.write(src, pos);
      }

      @Override
      public void force(boolean metadata) throws IOException {
        forces.incrementAndGet();
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
    return inner.usableSpace();
  }
}
