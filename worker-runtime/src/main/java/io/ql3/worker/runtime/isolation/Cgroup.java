package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One cgroup v2 directory and the interface files this agent uses. Plain file operations: the same
 * code runs against the kernel's cgroupfs and against a directory of ordinary files in tests. Every
 * write is one {@code write(2)} of the whole value, as cgroupfs requires (opened with O_TRUNC like
 * a shell redirection, which cgroupfs ignores and a plain file needs).
 */
public final class Cgroup {

  private final Path dir;
  private final String files; // dir + "/": the interface files' paths without a Path per read

  public Cgroup(Path dir) {
    this.dir = dir;
    this.files = dir + "/";
  }

  public Path dir() {
    return dir;
  }

  public String name() {
    return dir.getFileName() == null ? "/" : dir.getFileName().toString();
  }

  /** The {@code cgroup.procs} file: writing a pid there moves that process (all its threads). */
  public Path procsFile() {
    return dir.resolve("cgroup.procs");
  }

  public Cgroup child(String name) {
    if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("not a cgroup name: " + name);
    }
    return new Cgroup(dir.resolve(name));
  }

  public boolean exists() {
    return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS);
  }

  /** Creates this cgroup ({@code mkdir}); an existing one is kept. */
  public Cgroup create() throws IOException {
    if (!exists()) {
      Files.createDirectory(dir);
    }
    return this;
  }

  /** The child cgroups (directories), for sweeping leftovers. */
  public List<Cgroup> children() throws IOException {
    List<Cgroup> out = new ArrayList<>();
    try (var s = Files.list(dir)) {
      s.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .sorted()
          .forEach(p -> out.add(new Cgroup(p)));
    }
    return out;
  }

  /** The controllers available here ({@code cgroup.controllers}). */
  public Set<String> controllers() throws IOException {
    return words(read("cgroup.controllers"));
  }

  /** The controllers enabled for the children ({@code cgroup.subtree_control}). */
  public Set<String> subtreeControl() throws IOException {
    return words(read("cgroup.subtree_control"));
  }

  /**
   * Enables controllers for the children. The kernel refuses (EBUSY) while this cgroup has
   * processes of its own, unless it is the root: the "no internal processes" rule.
   */
  public void enable(Set<String> controllers) throws IOException {
    if (controllers.isEmpty()) {
      return;
    }
    StringBuilder b = new StringBuilder();
    for (String c : controllers) {
      b.append(b.length() == 0 ? "+" : " +").append(c);
    }
    write("cgroup.subtree_control", b.toString());
  }

  /** Moves a process (with all its threads) into this cgroup. */
  public void move(long pid) throws IOException {
    write("cgroup.procs", Long.toString(pid));
  }

  /** The processes in this cgroup (not its children), zombies excluded. */
  public List<Long> pids() throws IOException {
    List<Long> out = new ArrayList<>();
    for (String line : read("cgroup.procs").split("\n")) {
      String t = line.trim();
      if (!t.isEmpty()) {
        out.add(Long.parseLong(t));
      }
    }
    return out;
  }

  /** True while a live process is in this cgroup or below ({@code cgroup.events} populated). */
  public boolean populated() throws IOException {
    return keyed("cgroup.events", "populated").orElse(0) != 0;
  }

  /** Whether this kernel has {@code cgroup.kill} (Linux 5.14+). */
  public boolean canKill() {
    return Files.exists(dir.resolve("cgroup.kill"));
  }

  /** SIGKILL to every process in this cgroup and below, atomically (forks cannot escape it). */
  public void kill() throws IOException {
    write("cgroup.kill", "1");
  }

  /** Removes this (empty) cgroup ({@code rmdir}); true when it is gone. */
  public boolean remove() throws IOException {
    try {
      Files.delete(dir);
      return true;
    } catch (NoSuchFileException e) {
      return true;
    }
  }

  /** Writes one interface file. */
  public void write(String file, String value) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            dir.resolve(file),
            StandardOpenOption.WRITE,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buf = ByteBuffer.wrap(value.getBytes(StandardCharsets.US_ASCII));
      int written = ch.write(buf);
      if (written != buf.limit()) {
        throw new IOException(
            "short write to " + dir.resolve(file) + ": " + written + " of " + buf.limit());
      }
    }
  }

  /** Reads one interface file ({@link KernelFile}); a byte outside ASCII becomes U+FFFD. */
  public String read(String file) throws IOException {
    return new String(KernelFile.read(files + file), StandardCharsets.US_ASCII);
  }

  /** A single-number file such as {@code memory.peak}; empty when absent or "max". */
  public OptionalLong single(String file) {
    try {
      return decimal(read(file).trim());
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * One {@code key value} line of a flat-keyed file such as {@code cpu.stat}; empty when absent or
   * when the value is not a decimal {@code long}. Read at least twice per run (no regular
   * expression: the edge agent would compile it at interpreter speed each time).
   */
  public OptionalLong keyed(String file, String key) {
    String text;
    try {
      text = read(file);
    } catch (IOException e) {
      return OptionalLong.empty();
    }
    for (String line : text.split("\n")) {
      int space = line.indexOf(' ');
      if (space > 0 && space == key.length() && line.startsWith(key)) {
        return decimal(line.substring(space + 1).trim());
      }
    }
    return OptionalLong.empty();
  }

  private static OptionalLong decimal(String v) {
    if (v.isEmpty() || v.length() > 19) {
      return OptionalLong.empty();
    }
    for (int i = 0; i < v.length(); i++) {
      if (v.charAt(i) < '0' || v.charAt(i) > '9') {
        return OptionalLong.empty();
      }
    }
    try {
      return OptionalLong.of(Long.parseLong(v));
    } catch (NumberFormatException e) {
      return OptionalLong.empty(); // 19 digits above Long.MAX_VALUE
    }
  }

  private static Set<String> words(String text) {
    Set<String> out = new LinkedHashSet<>();
    for (String w : text.trim().split("\\s+")) {
      String name =
          w.startsWith("+") ? w.substring(1) : w; // as written, before the kernel shows it
      if (!name.isEmpty()) {
        out.add(name);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return dir.toString();
  }
}
