package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ql3.worker.transport.credentials.FilePermissions.Identity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package's layout (root:ql3-worker 0640 secrets) passes; what would let someone else read a
 * secret or change whom the agent trusts is refused with a remedy. "The agent" is the identity
 * passed in: the file's owner and group as the test created them, or another one.
 */
class FilePermissionsTest {
  @TempDir Path dir;

  private Path file(String name, String mode) throws Exception {
    Path p = Files.writeString(dir.resolve(name), "x");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    return p;
  }

  private static int uid(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:uid");
  }

  private static int gid(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:gid");
  }

  /** The agent as the file's owner and group. */
  private static Identity owner(Path p) throws Exception {
    return new Identity(uid(p), gid(p));
  }

  private static String refusal(ThrowingRunnable r) {
    CredentialException e = catchThrowableOfType(CredentialException.class, r::run);
    assertThat(e).as("refused").isNotNull();
    assertThat(e.reason()).isEqualTo(CredentialException.Reason.INSECURE_PERMISSIONS);
    return e.getMessage();
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void ownerOnlyAndTheAgentsGroupMayReadASecret() throws Exception {
    Path key = file("key", "rw-------");
    assertThatCode(() -> FilePermissions.checkSecret(key, "private key file", owner(key)))
        .doesNotThrowAnyException();
    Path shared = file("shared", "rw-r-----");
    assertThatCode(() -> FilePermissions.checkSecret(shared, "private key file", owner(shared)))
        .doesNotThrowAnyException();
  }

  @Test
  void aSecretReadableByAnotherGroupIsRefusedWithARemedy() throws Exception {
    Path key = file("key", "rw-r-----");
    Identity agent = new Identity(uid(key), gid(key) + 1);
    String m = refusal(() -> FilePermissions.checkSecret(key, "private key file", agent));
    assertThat(m)
        .contains("not the agent's own group")
        .contains("chmod 0640")
        .contains("chmod 0600");
  }

  @Test
  void aSecretAccessibleToOthersOrWritableByTheGroupIsRefused() throws Exception {
    Path world = file("world", "rw-r--r--");
    assertThat(refusal(() -> FilePermissions.checkSecret(world, "token file", owner(world))))
        .contains("accessible to others");
    Path groupWrite = file("gw", "rw-rw----");
    assertThat(
            refusal(() -> FilePermissions.checkSecret(groupWrite, "token file", owner(groupWrite))))
        .contains("writable by its group");
  }

  @Test
  void aSecretOwnedBySomeoneElseIsRefusedUnlessRootOwnsIt() throws Exception {
    Path key = file("key", "rw-------");
    Identity someoneElse = new Identity(uid(key) + 1, gid(key));
    if (uid(key) == 0) {
      // root owns it: allowed for any agent (the package's root:ql3-worker layout)
      assertThatCode(() -> FilePermissions.checkSecret(key, "private key file", someoneElse))
          .doesNotThrowAnyException();
      Files.setAttribute(key, "unix:uid", 4242); // as root: a stranger owns it now
      assertThat(
              refusal(
                  () ->
                      FilePermissions.checkSecret(
                          key, "private key file", new Identity(0, gid(key)))))
          .contains("owned by uid 4242");
    } else {
      assertThat(refusal(() -> FilePermissions.checkSecret(key, "private key file", someoneElse)))
          .contains("neither root nor the agent");
    }
  }

  @Test
  void aTrustBundleWritableByOthersOrTheGroupIsRefused() throws Exception {
    Path ok = file("ca-ok", "rw-r--r--");
    assertThatCode(
            () -> FilePermissions.checkNotWritableByOthers(ok, "trust bundle file", owner(ok)))
        .doesNotThrowAnyException();
    Path world = file("ca-world", "rw-rw-rw-");
    assertThat(
            refusal(
                () ->
                    FilePermissions.checkNotWritableByOthers(
                        world, "trust bundle file", owner(world))))
        .contains("writable by others")
        .contains("decides whom the agent trusts")
        .contains("chmod go-w");
    Path group = file("ca-group", "rw-rw-r--");
    assertThat(
            refusal(
                () ->
                    FilePermissions.checkNotWritableByOthers(
                        group, "trust bundle file", owner(group))))
        .contains("writable by its group");
  }
}
