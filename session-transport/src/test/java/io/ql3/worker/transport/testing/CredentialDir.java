package io.ql3.worker.transport.testing;

import io.ql3.worker.transport.credentials.CredentialFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Credential files of one worker in a directory, written like an operator would (0600 secrets). */
public final class CredentialDir {
  public static final String TOKEN = "tok_abcdefghijklmnop-0001";
  private final Path dir;

  public CredentialDir(Path dir) {
    this.dir = dir;
  }

  public CredentialFiles files() {
    return new CredentialFiles(
        dir.resolve("client.pem"),
        dir.resolve("client.key"),
        dir.resolve("ca.pem"),
        dir.resolve("token"));
  }

  /** Writes all four files in place. */
  public CredentialDir write(TestPki.Issued client, TestPki.Issued ca, String token)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("client.pem"), TestPki.chainPem(client), StandardCharsets.US_ASCII);
    TestPki.writeSecret(dir.resolve("client.key"), TestPki.pkcs8Pem(client.key()));
    Files.writeString(dir.resolve("ca.pem"), TestPki.pem(ca.cert()), StandardCharsets.US_ASCII);
    TestPki.writeSecret(dir.resolve("token"), token + "\n");
    return this;
  }

  /** Replaces cert and key each by write-to-temp + atomic rename (key first, then cert). */
  public void rotateAtomically(TestPki.Issued client) throws IOException {
    replace("client.key", TestPki.pkcs8Pem(client.key()), true);
    replace("client.pem", TestPki.chainPem(client), false);
  }

  public void rotateToken(String token) throws IOException {
    replace("token", token + "\n", true);
  }

  private void replace(String name, String content, boolean secret) throws IOException {
    Path tmp = dir.resolve("." + name + ".tmp");
    if (secret) {
      TestPki.writeSecret(tmp, content);
    } else {
      Files.writeString(tmp, content, StandardCharsets.US_ASCII);
    }
    Files.move(
        tmp,
        dir.resolve(name),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }

  public Path dir() {
    return dir;
  }
}
