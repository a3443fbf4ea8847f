package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * An in-memory disk with power-loss semantics. Data written but not forced lives only in the "page
 * cache"; directory changes not followed by a directory sync are volatile too. A power cut (armed
 * to happen inside the N-th mutating operation, after its volatile effect) produces a new disk
 * holding the forced data plus a random subset of the unforced sectors, and for the directory
 * either every unsynced change or none of them. The old disk then fails every call.
 */
final class SimulatedDisk implements Storage {
  private static final class SimFile {
    byte[] data = new byte[0];
    int len;
    byte[] durable = new byte[0];
    int durableLen;
    final BitSet dirty = new BitSet();
  }

  private final Random random;
  private final int sector;
  private Map<String, SimFile> dir = new HashMap<>();
  private Map<String, SimFile> durableDir = new HashMap<>();
  private boolean dead;
  private long opsUntilCut = Long.MAX_VALUE;
  private SimulatedDisk afterCut;

  SimulatedDisk(Random random, int sector) {
    this.random = random;
    this.sector = sector;
  }

  /** Arms a power cut inside the n-th mutating operation from now. */
  synchronized void armCut(long n) {
    opsUntilCut = n;
  }

  /** The disk as found after the cut, or null if it has not happened. */
  synchronized SimulatedDisk afterCut() {
    return afterCut;
  }

  /** Cuts power now (if not already cut). */
  synchronized SimulatedDisk cutNow() {
    if (!dead) {
      cut();
    }
    return afterCut;
  }

  private void cut() {
    SimulatedDisk next = new SimulatedDisk(random, random.nextBoolean() ? 512 : 4096);
    Map<String, SimFile> names = random.nextBoolean() ? dir : durableDir;
    Map<SimFile, SimFile> copies = new HashMap<>();
    for (Map.Entry<String, SimFile> e : names.entrySet()) {
      SimFile copy = copies.computeIfAbsent(e.getValue(), this::survivor);
      next.dir.put(e.getKey(), copy);
      next.durableDir.put(e.getKey(), copy);
    }
    dead = true;
    afterCut = next;
  }

  /** What survives of one file: its forced bytes plus a random subset of its dirty sectors. */
  private SimFile survivor(SimFile f) {
    SimFile s = new SimFile();
    byte[] out = Arrays.copyOf(f.durable, Math.max(f.durableLen, f.len));
    int len = f.durableLen;
    for (int i = f.dirty.nextSetBit(0); i >= 0; i = f.dirty.nextSetBit(i + 1)) {
      if (random.nextBoolean()) {
        int from = i * sector;
        int to = Math.min(from + sector, f.len);
        if (from < to) {
          System.arraycopy(f.data, from, out, from, to - from);
          len = Math.max(len, to);
        }
      }
    }
    s.data = Arrays.copyOf(out, len);
    s.len = len;
    s.durable = s.data.clone();
    s.durableLen = len;
    return s;
  }

  private void live() throws IOException {
    if (dead) {
      throw new IOException("power lost");
    }
  }

  /** Counts a mutating operation; cuts power after its volatile effect when armed. */
  private void mutated() throws IOException {
    if (--opsUntilCut <= 0) {
      cut();
      throw new IOException("power lost");
    }
  }

  @Override
  public synchronized List<String> list() throws IOException {
    live();
    return new ArrayList<>(dir.keySet());
  }

  @Override
  public synchronized StorageFile open(String name, boolean create) throws IOException {
    live();
    SimFile f = dir.get(name);
    if (f == null) {
      if (!create) {
        throw new java.nio.file.NoSuchFileException(name);
      }
      f = new SimFile();
      dir.put(name, f);
      mutated();
    }
    SimFile file = f;
    return new StorageFile() {
      @Override
      public int read(ByteBuffer dst, long pos) throws IOException {
        synchronized (SimulatedDisk.this) {
          live();
          if (pos >= file.len) {
            return -1;
          }
          int n = (int) Math.min(dst.remaining(), file.len - pos);
          dst.put(file.data, (int) pos, n);
          return n;
        }
      }

      @Override
      public void write(ByteBuffer src, long pos) throws IOException {
        synchronized (SimulatedDisk.this) {
          live();
          int n = src.remaining();
          int end = (int) pos + n;
          if (end > file.data.length) {
            file.data = Arrays.copyOf(file.data, Math.max(end, file.data.length * 2));
          }
          src.get(file.data, (int) pos, n);
          file.len = Math.max(file.len, end);
          if (n > 0) {
            file.dirty.set((int) (pos / sector), (end - 1) / sector + 1);
          }
          mutated();
        }
      }

      @Override
      public void force(boolean metadata) throws IOException {
        synchronized (SimulatedDisk.this) {
          live();
          mutated(); // a cut "during" the force: nothing of it is guaranteed
          file.durable = Arrays.copyOf(file.data, file.len);
          file.durableLen = file.len;
          file.dirty.clear();
        }
      }

      @Override
      public long size() throws IOException {
        synchronized (SimulatedDisk.this) {
          live();
          return file.len;
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public synchronized void rename(String from, String to) throws IOException {
    live();
    SimFile f = dir.remove(from);
    if (f == null) {
      throw new java.nio.file.NoSuchFileException(from);
    }
    dir.put(to, f);
    mutated();
  }

  @Override
  public synchronized void delete(String name) throws IOException {
    live();
    if (dir.remove(name) != null) {
      mutated();
    }
  }

  @Override
  public synchronized void syncDirectory() throws IOException {
    live();
    mutated();
    durableDir = new HashMap<>(dir);
  }

  @Override
  public synchronized long usableSpace() throws IOException {
    live();
    return Long.MAX_VALUE / 2;
  }
}
