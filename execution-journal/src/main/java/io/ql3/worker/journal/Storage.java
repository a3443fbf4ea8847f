package io.ql3.worker.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The journal's view of its directory. One seam so tests can inject write/force errors, a full
 * disk, or a simulated power cut; production uses {@link FileStorage}. The lock file is NOT
 * accessed through here: it is held by {@link OwnerLock} on the real directory only.
 */
interface Storage {

  /** Names of the regular files in the directory. */
  List<String> list() throws IOException;

  /** Opens an existing file for reading and writing, or creates it when {@code create}. */
  StorageFile open(String name, boolean create) throws IOException;

  /** Atomically renames, replacing the target. Not durable until {@link #syncDirectory()}. */
  void rename(String from, String to) throws IOException;

  void delete(String name) throws IOException;

  /** Makes creations, renames and deletions durable (fsync of the directory). */
  void syncDirectory() throws IOException;

  /** Bytes still usable on the file system holding the directory. */
  long usableSpace() throws IOException;

  interface StorageFile extends Closeable {
    /** Reads up to dst.remaining() bytes at pos; returns bytes read or -1 at end. */
    int read(ByteBuffer dst, long pos) throws IOException;

    /** Writes all of src at pos. */
    void write(ByteBuffer src, long pos) throws IOException;

    /** Forces written data to the device; {@code metadata} also forces size/metadata. */
    void force(boolean metadata) throws IOException;

    long size() throws IOException;
  }
}
