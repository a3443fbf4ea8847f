package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host's named accounts, through its name service ({@code getent}, so NSS sources count, not
 * only {@code /etc/passwd}; a source that does not enumerate, such as sssd with {@code enumerate =
 * false}, is not seen). Asked once at start, never per run: the run uid range must not hold a named
 * user or group.
 */
public interface AccountLookup {

  /** Users whose uid is in {@code first..last}, as {@code name(uid)}. */
  List<String> usersIn(long first, long last) throws IOException;

  /** Groups whose gid is in {@code first..last}, as {@code name(gid)}. */
  List<String> groupsIn(long first, long last) throws IOException;

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
    };
  }

  private static String getent(String database) throws IOException {
    Process p =
        new ProcessBuilder("getent", database)
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
    for (String line : listing.split("\n")) {
      String[] f = line.split(":", -1);
      if (f.length > 2 && f[2].matches("[0-9]{1,10}")) {
        long id = Long.parseLong(f[2]);
        if (id >= first && id <= last) {
          found.add(f[0] + "(" + id + ")");
        }
      }
    }
    return found;
  }
}
