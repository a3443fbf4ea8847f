package io.ql3.worker.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exclusive ownership of a journal directory: an OS lock on {@code journal.lock}, held through one
 * channel that stays open until release. The lock file is never read, renamed or unlinked, and no
 * other channel is ever opened on it while we hold it: on this JDK, closing ANY channel on a locked
 * file drops the process's lock. The owner's pid lives in a separate file.
 */
final class OwnerLock implements AutoCloseable {
  static final String LOCK_FILE = "journal.lock";
  static final String OWNER_FILE = "journal.owner";

  /**
   * Directories locked by this JVM, keyed by the directory's file key. This mirrors the OS lock
   * table, which is per process: a second open in the same JVM must be refused before it opens (and
   * closes) a channel on the lock file, which would silently drop the first owner's lock.
   */
  private static final ConcurrentHashMap<Object, Boolean> HELD_IN_THIS_JVM =
      new ConcurrentHashMap<>();

  private final Path dir;
  private final Object key;
  private final FileChannel channel;
  private final FileLock lock;

  private OwnerLock(Path dir, Object key, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.key = key;
    this.channel = channel;
    this.lock = lock;
  }

  static OwnerLock acquire(Path dir) throws IOException {
    Path real = dir.toRealPath();
    Object fileKey = Files.readAttributes(real, BasicFileAttributes.class).fileKey();
    Object key = fileKey != null ? fileKey : real;
    long self = ProcessHandle.current().pid();
    if (HELD_IN_THIS_JVM.putIfAbsent(key, Boolean.TRUE) != null) {
      throw new JournalOwnedException(dir, OptionalLong.of(self));
    }
    FileChannel ch = null;
    try {
      ch =
          FileChannel.open(
              real.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        ch.close(); // safe: this JVM holds no lock on this file (checked above)
        ch = null;
        throw new JournalOwnedException(dir, readOwner(real));
      }
      writeOwner(real, self);
      return new OwnerLock(real, key, ch, lock);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        ch.close();
      }
      HELD_IN_THIS_JVM.remove(key);
      throw e;
    }
  }

  private static void writeOwner(Path dir, long pid) throws IOException {
    Path tmp = dir.resolve(OWNER_FILE + ".w");
    Files.write(tmp, ("pid " + pid + "\n").getBytes(StandardCharsets.US_ASCII));
    Files.move(
        tmp,
        dir.resolve(OWNER_FILE),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }

  /** The pid written by the current owner, when it has written it. */
  static OptionalLong readOwner(Path dir) {
    try {
      String s = Files.readString(dir.resolve(OWNER_FILE), StandardCharsets.US_ASCII).trim();
      if (s.startsWith("pid ")) {
        return OptionalLong.of(Long.parseLong(s.substring(4).trim()));
      }
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  @Override
  public void close() throws IOException {
    try {
      Files.deleteIfExists(dir.resolve(OWNER_FILE));
      lock.release();
    } finally {
      channel.close();
      HELD_IN_THIS_JVM.remove(key);
    }
  }
}
