package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Resolves user and group names to numeric ids through the host's name service ({@code getent},
 * so NSS sources count, not only {@code /etc/passwd}). Called once at start, never per run.
 */
public interface AccountLookup {

  /** The uid of {@code user}, empty when there is no such user. */
  OptionalLong uid(String user) throws IOException;

  /** The primary gid of {@code user}, empty when there is no such user. */
  OptionalLong primaryGid(String user) throws IOException;

  /** The gid of {@code group}, empty when there is no such group. */
  OptionalLong gid(String group) throws IOException;

  /** Account and group names: what {@code useradd} and systemd-sysusers accept. */
  Pattern NAME = Pattern.compile("^[a-z_][a-z0-9_-]{0,31}$");

  /** The host's name service through {@code getent}. */
  static AccountLookup system() {
    return new AccountLookup() {
      @Override
      public OptionalLong uid(String user) throws IOException {
        return field(getent("passwd", user), 2);
      }

      @Override
      public OptionalLong primaryGid(String user) throws IOException {
        return field(getent("passwd", user), 3);
      }

      @Override
      public OptionalLong gid(String group) throws IOException {
        return field(getent("group", group), 2);
      }
    };
  }

  private static String getent(String database, String name) throws IOException {
    if (!NAME.matcher(name).matches()) {
      return null;
    }
    Process p =
        new ProcessBuilder("getent", database, "--", name)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
    }
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("getent " + database + " " + name + " did not answer in 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running getent", e);
    }
    // 2: no such key; anything else non-zero: the lookup itself failed.
    if (p.exitValue() == 2) {
      return null;
    }
    if (p.exitValue() != 0) {
      throw new IOException("getent " + database + " " + name + " exited " + p.exitValue() + ": " + out.trim());
    }
    return out.lines().findFirst().orElse(null);
  }

  private static OptionalLong field(String line, int index) {
    if (line == null) {
      return OptionalLong.empty();
    }
    String[] f = line.split(":", -1);
    if (f.length <= index || !f[index].matches("[0-9]{1,10}")) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Long.parseLong(f[index]));
  }
}
