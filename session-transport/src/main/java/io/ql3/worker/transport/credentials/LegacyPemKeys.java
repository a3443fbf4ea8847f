package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The key formats the JDK cannot read on its own, PKCS#1 {@code RSA PRIVATE KEY} and SEC1 {@code EC
 * PRIVATE KEY} (what {@code openssl genrsa}/{@code ecparam -genkey} write): BouncyCastle's parser
 * with the JDK's providers (BC is never registered as a JCA provider: it costs memory and start-up
 * time, and BC-typed keys broke the JDK TLS client). Kept in its own class so that BC is loaded
 * only when such a key is actually met.
 */
final class LegacyPemKeys {
  private LegacyPemKeys() {}

  static PrivateKey decode(PemBlock block) throws CredentialException {
    String armored =
        "-----BEGIN "
            + block.label()
            + "-----\n"
            + java.util.Base64.getMimeEncoder().encodeToString(block.der())
            + "\n-----END "
            + block.label()
            + "-----\n";
    try (PEMParser parser =
        new PEMParser(
            new InputStreamReader(
                new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)),
                StandardCharsets.US_ASCII))) {
      Object o = parser.readObject();
      if (o instanceof PEMEncryptedKeyPair) {
        throw new CredentialException(Reason.ENCRYPTED_KEY, PemReader.ENCRYPTED_MESSAGE);
      }
      if (!(o instanceof PEMKeyPair pair)) {
        throw new CredentialException(
            Reason.PEM_INVALID, "private key file holds an unexpected " + block.label() + " block");
      }
      // A SEC1 key may omit its public key (optional in RFC 5915): convert the private part alone.
      return new JcaPEMKeyConverter().getPrivateKey(pair.getPrivateKeyInfo());
    } catch (IOException | RuntimeException e) {
      // The message of a PEM parsing error never contains key bytes, only structure names.
      throw new CredentialException(
          Reason.PEM_INVALID, "private key file is not valid PEM: " + e.getMessage(), e);
    }
  }
}
