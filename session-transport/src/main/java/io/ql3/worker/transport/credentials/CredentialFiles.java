package io.ql3.worker.transport.credentials;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where the four credential files live. Each path may be a symlink (for example into a {@code
 * ..data} directory swapped atomically by a secret projector); change detection follows it.
 */
public record CredentialFiles(
    Path certificateChain, Path privateKey, Path trustBundle, Path token) {
  public CredentialFiles {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(trustBundle, "trustBundle");
    Objects.requireNonNull(token, "token");
  }

  List<Path> tlsFiles() {
    return List.of(certificateChain, privateKey, trustBundle);
  }
}
