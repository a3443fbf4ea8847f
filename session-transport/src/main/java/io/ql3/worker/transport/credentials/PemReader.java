package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.ByteArrayInputStream;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * PEM credential files to JDK objects, decoded by the JDK alone: certificates, PKCS#8 keys, and
 * PKCS#1/SEC1 keys rewrapped as PKCS#8 ({@link LegacyPemKeys}). Encrypted keys are refused in every
 * format: the agent has no passphrase to use.
 */
final class PemReader {
  static final String ENCRYPTED_MESSAGE =
      "private key file is encrypted; provide an unencrypted key with 0600 permissions";

  private PemReader() {}

  static List<X509Certificate> certificates(byte[] pem, String what) throws CredentialException {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (PemBlock block : PemBlock.parseAll(pem, what)) {
        if (!"CERTIFICATE".equals(block.label())) {
          throw new CredentialException(
              Reason.PEM_INVALID,
              what + " holds a non-certificate PEM block (" + block.label() + ")");
        }
        out.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
      }
    } catch (CertificateException e) {
      throw new CredentialException(
          Reason.PEM_INVALID, what + " is not valid PEM: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new CredentialException(Reason.PEM_INVALID, what + " holds no certificate");
    }
    return List.copyOf(out);
  }

  /** PKCS#8, PKCS#1 RSA or SEC1 EC; encrypted keys are refused. Exactly one key. */
  static PrivateKey privateKey(byte[] pem) throws CredentialException {
    PrivateKey key = null;
    for (PemBlock block : PemBlock.parseAll(pem, "private key file")) {
      String label = block.label();
      if ("EC PARAMETERS".equals(label)) {
        continue; // written by `openssl ecparam -genkey` before the key
      }
      if ("ENCRYPTED PRIVATE KEY".equals(label)
          || (label.endsWith("PRIVATE KEY") && block.hasHeaders())) {
        throw new CredentialException(Reason.ENCRYPTED_KEY, ENCRYPTED_MESSAGE);
      }
      if (key != null) {
        throw new CredentialException(
            Reason.PEM_INVALID, "private key file holds more than one key");
      }
      key =
          switch (label) {
            case "PRIVATE KEY" -> Pkcs8Keys.decode(block.der(), "PKCS#8");
            case "RSA PRIVATE KEY", "EC PRIVATE KEY" -> LegacyPemKeys.decode(block);
            default ->
                throw new CredentialException(
                    Reason.PEM_INVALID,
                    "private key file holds an unexpected PEM block (" + label + ")");
          };
    }
    if (key == null) {
      throw new CredentialException(Reason.PEM_INVALID, "private key file holds no key");
    }
    return key;
  }
}
