package io.ql3.worker.transport.credentials;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;

/**
 * Unencrypted PKCS#8 ({@code PRIVATE KEY}) keys decoded with the JDK's own providers, so the common
 * case loads no BouncyCastle class (about 150 classes and the 8 MB bcprov jar's index on the
 * agent's heap; see docs/performance.md). The key algorithm comes from the PrivateKeyInfo's
 * AlgorithmIdentifier, as BouncyCastle's converter did.
 */
final class Pkcs8Keys {
  // DER of the algorithm OIDs (tag 06, length, value) a TLS client key can have.
  private static final byte[] EC = {
    0x06, 0x07, 0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01
  };
  private static final byte[] RSA = {
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
   * bytes).
   */
  static PrivateKey decode(byte[] der) throws CredentialException {
    String algorithm = algorithm(der);
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw invalid(
          algorithm + " PKCS#8 key cannot be decoded (" + e.getClass().getSimpleName() + ")");
    }
  }

  /**
   * PrivateKeyInfo ::= SEQUENCE { version INTEGER, privateKeyAlgorithm AlgorithmIdentifier, … };
   * AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }.
   */
  static String algorithm(byte[] der) throws CredentialException {
    Der outer = new Der(der);
    outer.enter(0x30);
    outer.skip(0x02);
    outer.enter(0x30);
    byte[] oid = outer.element(0x06);
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

  private static CredentialException invalid(String message) {
    return new CredentialException(
        CredentialException.Reason.PEM_INVALID, "private key file is not valid PEM: " + message);
  }

  /** A cursor over definite-length DER: just enough to reach the algorithm OID, bounds-checked. */
  private static final class Der {
    private final byte[] b;
    private int pos;

    Der(byte[] b) {
      this.b = b;
    }

    /** Steps into a constructed element with this tag. */
    void enter(int tag) throws CredentialException {
      header(tag);
    }

    void skip(int tag) throws CredentialException {
      int length = header(tag); // not `pos += header(tag)`: that would add to the old pos
      pos += length;
    }

    /** The whole element (tag, length and value) with this tag, consumed. */
    byte[] element(int tag) throws CredentialException {
      int start = pos;
      int length = header(tag);
      pos += length;
      return Arrays.copyOfRange(b, start, pos);
    }

    /** Reads tag and length, leaves pos at the value, returns the length. */
    private int header(int tag) throws CredentialException {
      if (pos + 2 > b.length || (b[pos] & 0xFF) != tag) {
        throw invalid("PKCS#8 key structure is malformed");
      }
      pos++;
      int first = b[pos++] & 0xFF;
      int length;
      if (first < 0x80) {
        length = first;
      } else {
        int n = first & 0x7F;
        if (n == 0 || n > 3 || pos + n > b.length) {
          throw invalid("PKCS#8 key structure is malformed");
        }
        length = 0;
        for (int i = 0; i < n; i++) {
          length = (length << 8) | (b[pos++] & 0xFF);
        }
      }
      if (length > b.length - pos) {
        throw invalid("PKCS#8 key structure is malformed");
      }
      return length;
    }
  }
}
