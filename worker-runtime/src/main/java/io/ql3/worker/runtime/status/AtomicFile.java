package io.ql3.worker.runtime.status;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Replaces a small file atomically: a reader sees the old content or the new one, never a mix. Used
 * for the status file and the Prometheus text file, which other processes read at any time.
 *
 * <p>Write a temporary file in the same directory, rename it over the target. A durable file also
 * forces the data before the rename and the directory after it, so the new content survives a power
 * cut; the status and metrics files are not durable on purpose: they are rewritten every few
 * seconds and an fsync each time would wear the flash storage of small devices for nothing.
 */
public final class AtomicFile {
  private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

  /** Who may read the file besides the agent's own user. */
  public enum Readers {
    /** Mode 0640: the agent's group, not a run (the status file). */
    AGENT_GROUP("rw-r-----"),
    /** Mode 0644: anyone (the metrics file, which holds no secret, for node_exporter). */
    ANYONE("rw-r--r--");

    private final Set<PosixFilePermission> mode;

    Readers(String mode) {
      this.mode = PosixFilePermissions.fromString(mode);
    }
  }

  private final Path target;
  private final boolean durable;
  private final Readers readers;

  /** A durable atomic file the agent's group may read. */
  public AtomicFile(Path target) {
    this(target, true, Readers.AGENT_GROUP);
  }

  public AtomicFile(Path target, boolean durable, Readers readers) {
    this.durable = durable;
    this.readers = readers;
    this.target = target.toAbsolutePath();
  }

  public Path path() {
    return target;
  }

  /**
   * Writes {@code content} as the new file content, with the mode of its {@link Readers}. The
   * temporary file has an unpredictable name and is created new without following a link, so nobody
   * can plant a file or a symlink at its name.
   */
  public void replace(byte[] content) throws IOException {
    Path temp =
        target.resolveSibling(
            "." + target.getFileName() + "." + Long.toHexString(RANDOM.nextLong()) + ".tmp");
    try {
      write(temp, content);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
  }

  private void write(Path temp, byte[] content) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      if (durable) {
        ch.force(true);
      }
    }
    try {
      Files.setPosixFilePermissions(temp, readers.mode);
    } catch (UnsupportedOperationException ignored) {
      // Not a POSIX file system: keep the default mode.
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot replace " + target + " atomically on this file system", e);
    }
    if (durable) {
      forceDirectory(target.getParent());
    }
  }

  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
