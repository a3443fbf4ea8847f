package io.ql3.worker.transport.credentials;

import java.security.PrivateKey;

/**
 * The key formats the JDK cannot read on its own: PKCS#1 {@code RSA PRIVATE KEY} (RFC 8017) and
 * SEC1 {@code EC PRIVATE KEY} (RFC 5915), what {@code openssl genrsa -traditional} and {@code
 * openssl ecparam -genkey} write. Each is the private-key field of a PKCS#8 PrivateKeyInfo (RFC
 * 5208) as it stands, so it is wrapped in one and decoded by the JDK like any PKCS#8 key ({@link
 * Pkcs8Keys}): this class only adds the algorithm identifier, the JDK parses and checks the key.
 *
 * <p>A SEC1 key names its curve in its optional {@code [0] parameters} field, which becomes the
 * algorithm's parameters. Refused, each with its own message: no such field (the curve is unknown),
 * explicit curve parameters instead of a curve name (the JDK takes named curves only), bytes after
 * the key. Encrypted keys never get here ({@link PemReader} refuses them by their headers).
 */
final class LegacyPemKeys {
  private static final byte[] NULL = {0x05, 0x00};
  private static final byte[] VERSION_0 = {Der.INTEGER, 0x01, 0x00};

  private LegacyPemKeys() {}

  static PrivateKey decode(PemBlock block) throws CredentialException {
    byte[] der = block.der();
    String format;
    String name;
    byte[] algorithm;
    switch (block.label()) {
      case "RSA PRIVATE KEY" -> {
        format = "PKCS#1";
        name = "RSA";
        Der.single(der, Der.SEQUENCE, "PKCS#1 RSA key");
        algorithm = Der.encode(Der.SEQUENCE, Pkcs8Keys.RSA, NULL);
      }
      case "EC PRIVATE KEY" -> {
        format = "SEC1";
        name = "EC";
        algorithm = Der.encode(Der.SEQUENCE, Pkcs8Keys.EC, curveOf(der));
      }
      default -> throw Pkcs8Keys.invalid("unexpected " + block.label() + " block"); // PemReader's
    }
    return Pkcs8Keys.decode(
        name,
        Der.encode(Der.SEQUENCE, VERSION_0, algorithm, Der.encode(Der.OCTET_STRING, der)),
        format);
  }

  /**
   * ECPrivateKey ::= SEQUENCE { version INTEGER (1), privateKey OCTET STRING, parameters [0]
   * ECParameters OPTIONAL, publicKey [1] BIT STRING OPTIONAL }: the curve's OID, from [0].
   */
  private static byte[] curveOf(byte[] sec1) throws CredentialException {
    Der.single(sec1, Der.SEQUENCE, "SEC1 EC key");
    Der key = new Der(sec1, "SEC1 EC key");
    key.enter(Der.SEQUENCE);
    key.skip(Der.INTEGER);
    key.skip(Der.OCTET_STRING);
    if (!key.at(0xA0)) {
      throw Pkcs8Keys.invalid("the EC PRIVATE KEY does not name its curve (no parameters field)");
    }
    key.enter(0xA0);
    if (!key.at(Der.OID)) {
      throw Pkcs8Keys.invalid(
          "the EC PRIVATE KEY has explicit curve parameters; the JDK takes named curves only"
              + " (re-encode it: openssl ec -param_enc named_curve)");
    }
    byte[] curve = key.element(Der.OID);
    if (!key.atEnd()) {
      throw key.malformed();
    }
    return curve;
  }
}
