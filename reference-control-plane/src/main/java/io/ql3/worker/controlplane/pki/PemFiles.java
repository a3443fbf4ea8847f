package io.ql3.worker.controlplane.pki;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;

/**
 * Reads and writes PEM files with BouncyCastle's PEM codec on the JDK's default JCA providers
 * (BouncyCastle is never registered as a provider: see docs/control-plane.md).
 */
public final class PemFiles {
  public static final String KEY_MODE = "rw-------";
  public static final String CERT_MODE = "rw-r--r--";

  private PemFiles() {}

  public static X509Certificate readCertificate(Path file) throws IOException {
    List<X509Certificate> all = readCertificates(file);
    if (all.isEmpty()) {
      throw new IOException("no certificate in " + file);
    }
    return all.get(0);
  }

  public static List<X509Certificate> readCertificates(Path file) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof X509CertificateHolder holder) {
          out.add(converter.getCertificate(holder));
        }
      }
    } catch (CertificateException e) {
      throw new IOException("bad certificate in " + file + ": " + e.getMessage(), e);
    }
    return out;
  }

  public static PrivateKey readPrivateKey(Path file) throws IOException {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      Object o = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (o instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      if (o instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      throw new IOException("no unencrypted private key in " + file);
    }
  }

  static String toPem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  /**
   * Writes atomically (temp file with the final mode, then rename) so a reader never sees a partial
   * file.
   */
  public static void writeAtomically(Path file, byte[] content, String mode) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp =
        Files.createTempFile(
            dir,
            "." + file.getFileName(),
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(KEY_MODE)));
    try {
      Files.write(tmp, content);
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(mode));
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
