package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The consistency rules a credential set must pass before it is installed. The two that verify
 * signatures (the key matches the certificate, the chain verifies to the trust bundle) are skipped
 * for inputs the {@link CredentialCheckRecord} says were proven before; the others run every time.
 */
final class CredentialValidator {
  private final Clock clock;
  private final String expectedWorkerId;
  private final CredentialCheckRecord record;
  private final SecureRandom random = new SecureRandom();
  private int signatureChecks;

  CredentialValidator(Clock clock, String expectedWorkerId, CredentialCheckRecord record) {
    this.clock = clock;
    this.expectedWorkerId = expectedWorkerId;
    this.record = record;
  }

  /**
   * @param digest the inputs' {@link CredentialCheckRecord#digest}
   * @return the certificate identity (equal to the expected workerId)
   */
  String validate(
      List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trust, byte[] digest)
      throws CredentialException {
    X509Certificate leaf = chain.get(0);
    Date now = Date.from(clock.instant());
    boolean proven = record.covers(digest, now.toInstant());
    if (!proven) {
      signatureChecks++;
      checkKeyMatches(leaf, key);
    }
    try {
      leaf.checkValidity(now); // the JDK client would happily send an expired certificate
    } catch (CertificateExpiredException e) {
      throw new CredentialException(
          Reason.CERTIFICATE_EXPIRED,
          "client certificate expired at "
              + leaf.getNotAfter().toInstant()
              + " (notAfter); the local clock says "
              + now.toInstant());
    } catch (CertificateNotYetValidException e) {
      throw new CredentialException(
          Reason.CERTIFICATE_NOT_YET_VALID,
          "client certificate is not valid before "
              + leaf.getNotBefore().toInstant()
              + " (notBefore); the local clock says "
              + now.toInstant()
              + ": if the clock is wrong (no RTC, no time sync yet), the agent waits for it");
    }
    if (!proven) {
      checkChain(chain, trust, now);
    }
    String identity = CertificateIdentity.of(leaf);
    if (!identity.equals(expectedWorkerId)) {
      throw new CredentialException(
          Reason.IDENTITY_MISMATCH,
          "configured workerId '"
              + expectedWorkerId
              + "' but the certificate identity is '"
              + identity
              + "'");
    }
    if (!proven) {
      rememberProven(chain, digest);
    }
    return identity;
  }

  /** How many loads verified the signatures (the others were covered by the record). */
  int signatureChecks() {
    return signatureChecks;
  }

  /** Records the chain as proven while every certificate of it is valid. */
  private void rememberProven(List<X509Certificate> chain, byte[] digest) {
    Instant from = Instant.MIN;
    Instant until = Instant.MAX;
    for (X509Certificate c : chain) {
      Instant notBefore = c.getNotBefore().toInstant();
      Instant notAfter = c.getNotAfter().toInstant();
      from = notBefore.isAfter(from) ? notBefore : from;
      until = notAfter.isBefore(until) ? notAfter : until;
    }
    record.remember(digest, from, until);
  }

  private void checkKeyMatches(X509Certificate leaf, PrivateKey key) throws CredentialException {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "EC" -> "SHA256withECDSA";
          case "RSA" -> "SHA256withRSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          case "Ed448" -> "Ed448";
          default -> null;
        };
    if (algorithm == null) {
      throw new CredentialException(
          Reason.KEY_MISMATCH, "unsupported private key algorithm " + key.getAlgorithm());
    }
    if (!key.getAlgorithm().equals(leaf.getPublicKey().getAlgorithm())
        && !(key.getAlgorithm().startsWith("Ed")
            && leaf.getPublicKey().getAlgorithm().startsWith("Ed"))) {
      throw new CredentialException(
          Reason.KEY_MISMATCH,
          "private key is "
              + key.getAlgorithm()
              + " but the certificate key is "
              + leaf.getPublicKey().getAlgorithm());
    }
    byte[] challenge = new byte[32];
    random.nextBytes(challenge);
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(leaf.getPublicKey());
      verifier.update(challenge);
      if (!verifier.verify(signature)) {
        throw new CredentialException(
            Reason.KEY_MISMATCH, "private key does not match the certificate");
      }
    } catch (GeneralSecurityException e) {
      throw new CredentialException(
          Reason.KEY_MISMATCH, "private key does not match the certificate: " + e.getMessage(), e);
    }
  }

  private static void checkChain(List<X509Certificate> chain, List<X509Certificate> trust, Date now)
      throws CredentialException {
    Set<TrustAnchor> anchors = new HashSet<>();
    for (X509Certificate t : trust) {
      anchors.add(new TrustAnchor(t, null));
    }
    List<X509Certificate> path = new ArrayList<>(chain);
    // A chain file may end with the root itself; PKIX wants the path without its anchor.
    while (path.size() > 1 && trust.contains(path.get(path.size() - 1))) {
      path.remove(path.size() - 1);
    }
    try {
      CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
      PKIXParameters params = new PKIXParameters(anchors);
      params.setRevocationEnabled(false);
      params.setDate(now);
      CertPathValidator.getInstance("PKIX").validate(certPath, params);
    } catch (CertPathValidatorException e) {
      throw new CredentialException(
          Reason.CHAIN_UNTRUSTED,
          "client chain does not verify to the trust bundle: " + e.getMessage(),
          e);
    } catch (GeneralSecurityException e) {
      throw new CredentialException(
          Reason.CHAIN_UNTRUSTED, "cannot verify the client chain: " + e.getMessage(), e);
    }
  }
}
