package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where this process sits in the cgroup v2 hierarchy: the cgroup2 mount from {@code
 * /proc/self/mountinfo} joined with the {@code 0::PATH} line of {@code /proc/self/cgroup}.
 *
 * @param mount the cgroup2 mount point (the root of what this process can see)
 * @param own the directory of this process's own cgroup
 */
public record CgroupLocation(Path mount, Path own) {

  /** True when this process is in the root cgroup of the mount (no systemd unit around it). */
  public boolean atRoot() {
    return own.equals(mount);
  }

  /**
   * Finds the location; empty with no cgroup2 mount (pure v1 hosts) or no {@code 0::} line.
   *
   * @throws IOException when the files cannot be read
   */
  public static Optional<CgroupLocation> find(Path mountinfo, Path selfCgroup) throws IOException {
    Path mount = null;
    String mountRoot = "/";
    for (String line : Files.readAllLines(mountinfo)) {
      // id parent major:minor root mount-point options [optional...] - fstype source super-options
      String[] f = line.split(" ");
      int dash = indexOf(f, "-");
      if (dash < 0 || dash + 1 >= f.length || f.length < 5) {
        continue;
      }
      if (f[dash + 1].equals("cgroup2")) {
        mount = Path.of(unescape(f[4]));
        mountRoot = unescape(f[3]);
        break;
      }
    }
    if (mount == null) {
      return Optional.empty();
    }
    String path = null;
    for (String line : Files.readAllLines(selfCgroup)) {
      if (line.startsWith("0::")) {
        path = line.substring(3);
      }
    }
    if (path == null || !path.startsWith("/") || path.contains("/..")) {
      return Optional.empty();
    }
    if (!mountRoot.equals("/")) {
      // A bind mount of a subtree: the process path is relative to the hierarchy's root.
      if (!path.startsWith(mountRoot)) {
        return Optional.empty();
      }
      path = path.substring(mountRoot.length());
    }
    Path own = mount;
    for (String name : path.split("/")) {
      if (!name.isEmpty()) {
        own = own.resolve(name);
      }
    }
    return Optional.of(new CgroupLocation(mount, own));
  }

  private static int indexOf(String[] f, String s) {
    for (int i = 6; i < f.length; i++) {
      if (f[i].equals(s)) {
        return i;
      }
    }
    return -1;
  }

  /** mountinfo escapes space, tab, newline and backslash as octal {@code \NNN}. */
  private static String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
