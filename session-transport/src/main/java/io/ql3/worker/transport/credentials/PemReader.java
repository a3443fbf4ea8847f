package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM decoding with BouncyCastle's parser but the JDK's own providers: BC is never registered as a
 * JCA provider (it costs memory and start-up time, and BC-typed keys broke the JDK TLS client).
 */
final class PemReader {
    private PemReader() {}

    static List<X509Certificate> certificates(byte[] pem, String what) throws CredentialException {
        List<X509Certificate> out = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser parser = parser(pem)) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (!(o instanceof X509CertificateHolder holder)) {
                    throw new CredentialException(Reason.PEM_INVALID,
                            what + " holds a non-certificate PEM block (" + o.getClass().getSimpleName() + ")");
                }
                out.add(converter.getCertificate(holder));
            }
        } catch (IOException | CertificateException | RuntimeException e) {
            throw new CredentialException(Reason.PEM_INVALID, what + " is not valid PEM: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new CredentialException(Reason.PEM_INVALID, what + " holds no certificate");
        }
        return List.copyOf(out);
    }

    /** PKCS#8, PKCS#1 RSA or SEC1 EC; encrypted keys are refused. Exactly one key. */
    static PrivateKey privateKey(byte[] pem) throws CredentialException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        PrivateKey key = null;
        try (PEMParser parser = parser(pem)) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof ASN1ObjectIdentifier) {
                    continue; // "EC PARAMETERS" block written by `openssl ecparam -genkey`
                }
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new CredentialException(Reason.ENCRYPTED_KEY,
                            "private key file is encrypted; provide an unencrypted key with 0600 permissions");
                }
                if (key != null) {
                    throw new CredentialException(Reason.PEM_INVALID, "private key file holds more than one key");
                }
                if (o instanceof PEMKeyPair pair) {
                    key = converter.getKeyPair(pair).getPrivate();
                } else if (o instanceof PrivateKeyInfo info) {
                    key = converter.getPrivateKey(info);
                } else {
                    throw new CredentialException(Reason.PEM_INVALID,
                            "private key file holds an unexpected PEM block (" + o.getClass().getSimpleName() + ")");
                }
            }
        } catch (CredentialException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // The message of a PEM parsing error never contains key bytes, only structure names.
            throw new CredentialException(Reason.PEM_INVALID, "private key file is not valid PEM: " + e.getMessage(), e);
        }
        if (key == null) {
            throw new CredentialException(Reason.PEM_INVALID, "private key file holds no key");
        }
        return key;
    }

    private static PEMParser parser(byte[] pem) {
        return new PEMParser(new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII));
    }
}
