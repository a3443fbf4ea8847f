package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The host's named accounts, through its name service ({@code getent}, so NSS sources count, not
 * only {@code /etc/passwd}; a source that does not enumerate, such as sssd with {@code enumerate =
 * false}, is not seen by the range queries; a lookup by name asks the source directly). Asked once
 * at start, never per run: the run account is looked up by name, and the rest of the run uid range
 * must not hold a named user or group.
 */
public interface AccountLookup {

  /** Users whose uid is in {@code first..last}, as {@code name(uid)}. */
  List<String> usersIn(long first, long last) throws IOException;

  /** Groups whose gid is in {@code first..last}, as {@code name(gid)}. */
  List<String> groupsIn(long first, long last) throws IOException;

  /** The user of that name as its uid and primary gid, or empty when there is none. */
  Optional<RunAccount> user(String name) throws IOException;

  /** The gid of the group of that name, or empty when there is none. */
  OptionalLong group(String name) throws IOException;

  /** The host's name service through {@code getent passwd} and {@code getent group}. */
  static AccountLookup system() {
    return new AccountLookup() {
      @Override
      public List<String> usersIn(long first, long last) throws IOException {
        return inRange(getent("passwd"), first, last);
      }

      @Override
      public List<String> groupsIn(long first, long last) throws IOException {
        return inRange(getent("group"), first, last);
      }

      @Override
      public Optional<RunAccount> user(String name) throws IOException {
        return userIn(getent("passwd", name), name);
      }

      @Override
      public OptionalLong group(String name) throws IOException {
        return groupIn(getent("group", name), name);
      }
    };
  }

  private static String getent(String... query) throws IOException {
    String database = query[0];
    List<String> argv = new ArrayList<>(List.of("getent"));
    argv.addAll(List.of(query));
    Process p =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("getent " + database + " did not answer in 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running getent", e);
    }
    if (p.exitValue() != 0 && p.exitValue() != 2) {
      throw new IOException("getent " + database + " exited " + p.exitValue() + ": " + out.trim());
    }
    return out;
  }

  /** The entries of a passwd or group listing whose third field is in range. */
  static List<String> inRange(String listing, long first, long last) {
    List<String> found = new ArrayList<>();
    for (String[] f : entries(listing)) {
      long id = Long.parseLong(f[2]);
      if (id >= first && id <= last) {
        found.add(f[0] + "(" + id + ")");
      }
    }
    return found;
  }

  /** The user {@code name} of a passwd listing, as its uid and primary gid. */
  static Optional<RunAccount> userIn(String passwd, String name) {
    return entries(passwd).stream()
        .filter(f -> f[0].equals(name) && f.length > 3 && isId(f[3]))
        .findFirst()
        .map(f -> new RunAccount(Long.parseLong(f[2]), Long.parseLong(f[3])));
  }

  /** The gid of the group {@code name} of a group listing. */
  static OptionalLong groupIn(String group, String name) {
    return entries(group).stream()
        .filter(f -> f[0].equals(name))
        .mapToLong(f -> Long.parseLong(f[2]))
        .findFirst();
  }

  /** The lines of a passwd or group listing whose third field is a numeric id, split at ':'. */
  private static List<String[]> entries(String listing) {
    List<String[]> entries = new ArrayList<>();
    for (String line : listing.split("\n")) {
      String[] f = line.split(":", -1);
      if (f.length > 2 && isId(f[2])) {
        entries.add(f);
      }
    }
    return entries;
  }

  private static boolean isId(String field) {
    return field.matches("[0-9]{1,10}");
  }
}
