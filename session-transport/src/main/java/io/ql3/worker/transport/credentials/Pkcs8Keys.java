package io.ql3.worker.transport.credentials;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;

/**
 * Unencrypted PKCS#8 ({@code PRIVATE KEY}) keys decoded with the JDK's own providers: the agent
 * needs no other cryptographic library (BouncyCastle cost about 150 classes, and its three jars'
 * indexes 1.2-1.9 MiB of the edge agent's RSS; docs/perf/edge.md). The key algorithm comes from the
 * PrivateKeyInfo's AlgorithmIdentifier.
 */
final class Pkcs8Keys {
  // DER of the algorithm OIDs (tag 06, length, value) a TLS client key can have.
  static final byte[] EC = {0x06, 0x07, 0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01};
  static final byte[] RSA = {
    0x06, 0x09, 0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01, 0x01
  };
  private static final byte[] RSA_PSS = {
    0x06, 0x09, 0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01, 0x0A
  };
  private static final byte[] ED25519 = {0x06, 0x03, 0x2B, 0x65, 0x70};
  private static final byte[] ED448 = {0x06, 0x03, 0x2B, 0x65, 0x71};

  private Pkcs8Keys() {}

  /**
   * The key, or a {@link CredentialException.Reason#PEM_INVALID} naming what is wrong (never key
   * bytes, so not the JDK's message either).
   *
   * @param format what the key file held, for the message ("PKCS#8", "SEC1")
   */
  static PrivateKey decode(byte[] der, String format) throws CredentialException {
    return decode(algorithm(der), der, format);
  }

  /** {@link #decode(byte[], String)} for a PrivateKeyInfo whose algorithm the caller wrote. */
  static PrivateKey decode(String algorithm, byte[] der, String format) throws CredentialException {
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw invalid(
          algorithm
              + " "
              + format
              + " key cannot be decoded ("
              + e.getClass().getSimpleName()
              + ")");
    }
  }

  /**
   * PrivateKeyInfo ::= SEQUENCE { version INTEGER, privateKeyAlgorithm AlgorithmIdentifier, … };
   * AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }.
   */
  static String algorithm(byte[] der) throws CredentialException {
    Der outer = new Der(der, "PKCS#8 key");
    outer.enter(Der.SEQUENCE);
    outer.skip(Der.INTEGER);
    outer.enter(Der.SEQUENCE);
    byte[] oid = outer.element(Der.OID);
    if (Arrays.equals(oid, EC)) {
      return "EC";
    } else if (Arrays.equals(oid, RSA)) {
      return "RSA";
    } else if (Arrays.equals(oid, RSA_PSS)) {
      return "RSASSA-PSS";
    } else if (Arrays.equals(oid, ED25519)) {
      return "Ed25519";
    } else if (Arrays.equals(oid, ED448)) {
      return "Ed448";
    }
    throw invalid("PKCS#8 key has an unsupported algorithm");
  }

  static CredentialException invalid(String message) {
    return new CredentialException(
        CredentialException.Reason.PEM_INVALID, "private key file is not valid PEM: " + message);
  }
}
