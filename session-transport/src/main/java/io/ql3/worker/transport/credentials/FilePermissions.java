package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The permission rules for the files the agent trusts, matching what the package installs ({@code
 * root:ql3-worker 0640} files in a {@code 0750} directory):
 *
 * <ul>
 *   <li>secrets (private key, token): readable by their owner only, or also by their group when the
 *       group is the agent's own primary group and the owner is root or the agent; never writable
 *       by the group, never accessible to others;
 *   <li>what decides whom the agent trusts or who it is (trust bundle, certificate, configuration):
 *       owned by root or the agent and writable by nobody else (no group or other write).
 * </ul>
 *
 * <p>Each refusal names a remedy that works with the package's layout.
 */
public final class FilePermissions {
  private FilePermissions() {}

  /** Who the agent runs as: the effective uid and primary gid of this process. */
  public record Identity(int uid, int gid) {
    /** This process (the owner of {@code /proc/self}); null where that cannot be read. */
    public static Identity current() {
      try {
        Path self = Path.of("/proc/self");
        return new Identity(
            (Integer) Files.getAttribute(self, "unix:uid"),
            (Integer) Files.getAttribute(self, "unix:gid"));
      } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
        return null;
      }
    }
  }

  /**
   * Key and token: owner-only, or group-readable by the agent's own group (owner root or the
   * agent).
   */
  public static void checkSecret(Path path, String what, Identity me) throws CredentialException {
    Attributes a = attributes(path, what);
    if (a == null) {
      return;
    }
    String remedy =
        "chmod 0600 "
            + path
            + " (owner the agent's user), or chown root:"
            + group(me)
            + " "
            + path
            + " && chmod 0640 "
            + path
            + " (what ql3-worker-install-credentials does)";
    Set<PosixFilePermission> p = a.perms;
    if (p.contains(PosixFilePermission.OTHERS_READ)
        || p.contains(PosixFilePermission.OTHERS_WRITE)
        || p.contains(PosixFilePermission.OTHERS_EXECUTE)) {
      throw refused(what, path, a, "is accessible to others", remedy);
    }
    if (p.contains(PosixFilePermission.GROUP_WRITE)) {
      throw refused(what, path, a, "is writable by its group", remedy);
    }
    if (me != null && a.uid != 0 && a.uid != me.uid()) {
      throw refused(
          what,
          path,
          a,
          "is owned by uid " + a.uid + ", neither root nor the agent (uid " + me.uid() + ")",
          remedy);
    }
    if (p.contains(PosixFilePermission.GROUP_READ) && me != null && a.gid != me.gid()) {
      throw refused(
          what,
          path,
          a,
          "is readable by group "
              + a.gid
              + ", which is not the agent's own group (gid "
              + me.gid()
              + ")",
          remedy);
    }
  }

  /**
   * Trust bundle, certificate, configuration: owned by root or the agent, writable by nobody else.
   */
  public static void checkNotWritableByOthers(Path path, String what, Identity me)
      throws CredentialException {
    Attributes a = attributes(path, what);
    if (a == null) {
      return;
    }
    String remedy = "chown root " + path + " && chmod go-w " + path;
    if (a.perms.contains(PosixFilePermission.OTHERS_WRITE)
        || a.perms.contains(PosixFilePermission.GROUP_WRITE)) {
      throw refused(
          what,
          path,
          a,
          "is writable by "
              + (a.perms.contains(PosixFilePermission.OTHERS_WRITE) ? "others" : "its group")
              + ": whoever can write it decides whom the agent trusts",
          remedy);
    }
    if (me != null && a.uid != 0 && a.uid != me.uid()) {
      throw refused(
          what,
          path,
          a,
          "is owned by uid " + a.uid + ", neither root nor the agent (uid " + me.uid() + ")",
          remedy);
    }
  }

  private record Attributes(Set<PosixFilePermission> perms, int uid, int gid) {}

  /** Null where the file system has no POSIX permissions (nothing to check). */
  private static Attributes attributes(Path path, String what) throws CredentialException {
    try {
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(path);
      int uid = (Integer) Files.getAttribute(path, "unix:uid");
      int gid = (Integer) Files.getAttribute(path, "unix:gid");
      return new Attributes(p, uid, gid);
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return null;
    } catch (IOException e) {
      throw new CredentialException(
          Reason.FILE_UNREADABLE, what + " " + path + ": " + e.getMessage(), e);
    }
  }

  private static CredentialException refused(
      String what, Path path, Attributes a, String problem, String remedy) {
    return new CredentialException(
        Reason.INSECURE_PERMISSIONS,
        what
            + " "
            + path
            + " ("
            + PosixFilePermissions.toString(a.perms)
            + ", uid "
            + a.uid
            + ", gid "
            + a.gid
            + ") "
            + problem
            + "; fix: "
            + remedy);
  }

  private static String group(Identity me) {
    return me == null ? "ql3-worker" : Integer.toString(me.gid());
  }
}
