package io.ql3.worker.transport.testing;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;

/** PKCS12 key and trust stores for servers (wiremock/Jetty) that want files. */
public final class KeyStores {
  public static final String PASSWORD = "changeit";

  private KeyStores() {}

  public static Path keyStore(Path file, TestPki.Issued issued) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(
        "server", issued.key(), PASSWORD.toCharArray(), issued.chain().toArray(Certificate[]::new));
    return store(ks, file);
  }

  public static Path trustStore(Path file, Certificate... trusted) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    for (int i = 0; i < trusted.length; i++) {
      ks.setCertificateEntry("ca-" + i, trusted[i]);
    }
    return store(ks, file);
  }

  private static Path store(KeyStore ks, Path file) throws Exception {
    try (OutputStream out = Files.newOutputStream(file)) {
      ks.store(out, PASSWORD.toCharArray());
    }
    return file;
  }
}
