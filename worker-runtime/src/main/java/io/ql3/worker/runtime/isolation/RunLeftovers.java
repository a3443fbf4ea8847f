package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a run uid left outside its work directory, in the places every uid may write: the entries it
 * owns beside its work directory ({@link #besideWorkDirectory}) and at the top of {@code /tmp},
 * {@code /var/tmp} and {@code /dev/shm} (under systemd the unit's private {@code /tmp}; {@code
 * /dev/shm} is the host's), and its System V shared memory segments, message queues and semaphore
 * sets ({@code /proc/sysvipc}). The next run with the same uid could read all of it, so it goes
 * with the work directory (as that uid, {@link Isolation}). Not covered: what it put deeper in
 * another uid's world-writable directory, POSIX message queues ({@code /dev/mqueue}), kernel
 * keyrings (the unit forbids the keyring system calls).
 *
 * <p>Each is a removal argument: an absolute path, or {@code ipc-shm:ID}, {@code ipc-msg:ID},
 * {@code ipc-sem:ID}.
 *
 * <p>Cost: this is asked at the end of every run, so a directory is listed again only when it may
 * have changed. A listing remembers the directory's modification time and the owners of its
 * entries; while the modification time is the same and was already {@link #SETTLED_MS} old when the
 * listing started, no entry was added, removed or renamed since, so the remembered owners still
 * hold (creating, removing or renaming an entry sets the directory's modification time to the
 * current time, and a run uid cannot set it back: the directories are root's). The margin covers
 * timestamp granularity (a change in the same clock tick as the remembered time would keep it).
 * Limit: a change made while the real-time clock was stepped back to exactly the remembered
 * timestamp, or an entry that a privileged process of the host gives to a run uid with chown, is
 * seen only at the next listing. A {@code /proc/sysvipc} table with no object is one short read.
 */
final class RunLeftovers {

  static final List<Path> SHARED_DIRS =
      List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"));

  /** How old a directory's modification time must be for a listing of it to be remembered. */
  static final long SETTLED_MS = 2_000;

  private final List<IpcTable> ipcTables;
  private final List<Path> sharedDirs;
  private final LongSupplier wallMillis;
  // guarded by this
  private final Map<Path, Listing> listings = new HashMap<>();

  /**
   * A listing of one directory: which directory (device and inode: a directory replaced or mounted
   * over is another one), its modification time then and the uids that own its entries.
   */
  private record Listing(Object key, FileTime modified, Set<Long> owners) {}

  /** A {@code /proc/sysvipc} table and the prefix of the removal arguments of its objects. */
  private record IpcTable(String path, String prefix) {}

  RunLeftovers(Path proc, List<Path> sharedDirs, LongSupplier wallMillis) {
    this.ipcTables =
        List.of(
            new IpcTable(proc.resolve("sysvipc/shm").toString(), "ipc-shm:"),
            new IpcTable(proc.resolve("sysvipc/msg").toString(), "ipc-msg:"),
            new IpcTable(proc.resolve("sysvipc/sem").toString(), "ipc-sem:"));
    this.sharedDirs = List.copyOf(sharedDirs);
    this.wallMillis = wallMillis;
  }

  /** What {@code uid} left; reads one directory only when it may have changed since it was read. */
  synchronized List<String> of(long uid) {
    List<String> found = new ArrayList<>();
    for (Path dir : sharedDirs) {
      BasicFileAttributes attributes;
      try {
        // Following a link, as the listing does (/dev/shm may be a link to /run/shm).
        attributes = Files.readAttributes(dir, BasicFileAttributes.class);
      } catch (IOException | RuntimeException absent) {
        listings.remove(dir);
        continue; // no such directory here
      }
      Object key = attributes.fileKey();
      FileTime modified = attributes.lastModifiedTime();
      Listing known = listings.get(dir);
      if (known != null
          && key != null
          && key.equals(known.key())
          && known.modified().equals(modified)
          && !known.owners().contains(uid)) {
        continue;
      }
      long listedAt = wallMillis.getAsLong();
      Set<Long> owners = list(dir, uid, found);
      if (owners != null && key != null && modified.toMillis() <= listedAt - SETTLED_MS) {
        listings.put(dir, new Listing(key, modified, owners));
      } else {
        listings.remove(dir);
      }
    }
    for (IpcTable table : ipcTables) {
      ipc(table, uid, found);
    }
    return found;
  }

  /**
   * What {@code uid} put beside its own work directory {@code workDir}: the entries of the runs
   * directory ({@code WORK/runs}, 1733: every run creates its work directory there) it owns, but
   * that one. Listed at every run's end, not remembered: the directory changes with every run, so
   * the cost is one listing of the runs that exist together.
   */
  static List<String> besideWorkDirectory(Path workDir, long uid) {
    List<String> found = new ArrayList<>();
    list(workDir.getParent(), uid, found);
    found.remove(workDir.toString());
    return found;
  }

  /**
   * Adds the entries of {@code dir} that {@code uid} owns; returns every owner, or null when the
   * directory or the owner of one of its entries could not be read (such a listing is not kept).
   */
  private static Set<Long> list(Path dir, long uid, List<String> found) {
    Set<Long> owners = new HashSet<>();
    boolean complete = true;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path e : entries) {
        try {
          long owner = (Integer) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS);
          owners.add(owner);
          if (owner == uid) {
            found.add(e.toString());
          }
        } catch (IOException | RuntimeException gone) {
          complete = false; // removed meanwhile (which changed the directory's time), or unreadable
        }
      }
      return complete ? owners : null;
    } catch (IOException | RuntimeException absent) {
      return null;
    }
  }

  /**
   * One {@code /proc/sysvipc} table: a header naming the columns (the id is the second), one object
   * per line.
   */
  private static void ipc(IpcTable table, long uid, List<String> found) {
    byte[] bytes;
    try {
      bytes = KernelFile.read(table.path());
    } catch (IOException | RuntimeException absent) {
      return;
    }
    int headerEnd = indexOf(bytes, (byte) '\n', 0);
    if (headerEnd < 0 || headerEnd + 1 >= bytes.length) {
      return; // the header alone: no object of anybody
    }
    String text = new String(bytes, StandardCharsets.US_ASCII);
    List<String> header = fields(text.substring(0, headerEnd));
    int uidColumn = header.indexOf("uid");
    int idColumn = 1;
    if (uidColumn < 0) {
      return;
    }
    String wanted = Long.toString(uid);
    for (String line : text.substring(headerEnd + 1).split("\n")) {
      List<String> f = fields(line);
      if (f.size() > Math.max(uidColumn, idColumn) && f.get(uidColumn).equals(wanted)) {
        found.add(table.prefix() + f.get(idColumn));
      }
    }
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** The fields of a line separated by spaces and tabs. */
  private static List<String> fields(String line) {
    List<String> f = new ArrayList<>();
    int i = 0;
    int n = line.length();
    while (i < n) {
      while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
        i++;
      }
      int start = i;
      while (i < n && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
        i++;
      }
      if (i > start) {
        f.add(line.substring(start, i));
      }
    }
    return f;
  }
}
