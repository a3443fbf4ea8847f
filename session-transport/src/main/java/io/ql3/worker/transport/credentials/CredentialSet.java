package io.ql3.worker.transport.credentials;

import java.math.BigInteger;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One validated, immutable TLS credential generation: client chain + key (behind a key manager),
 * trust anchors from the bundle only, and the facts that may be logged (fingerprint, serial,
 * not-after, identity, generation). The private key is not reachable from outside this package.
 */
public final class CredentialSet {
  private final long generation;
  private final List<X509Certificate> chain;
  private final List<X509Certificate> trust;
  private final CredentialKeyManager keyManager;
  private final X509ExtendedTrustManager trustManager;
  private final String identity;
  private final String fingerprint;

  CredentialSet(
      long generation,
      List<X509Certificate> chain,
      java.security.PrivateKey key,
      List<X509Certificate> trust,
      String identity)
      throws java.security.GeneralSecurityException {
    this.generation = generation;
    this.chain = List.copyOf(chain);
    this.trust = List.copyOf(trust);
    this.keyManager = new CredentialKeyManager(key, chain.toArray(X509Certificate[]::new));
    this.trustManager = trustManagerOf(trust);
    this.identity = identity;
    this.fingerprint = sha256(chain.get(0));
  }

  /**
   * This set's client chain and key with the trust bundle of {@code newer}, under this set's
   * generation.
   */
  private CredentialSet(CredentialSet keys, CredentialSet trustFrom) {
    this.generation = keys.generation;
    this.chain = keys.chain;
    this.trust = trustFrom.trust;
    this.keyManager = keys.keyManager;
    this.trustManager = trustFrom.trustManager;
    this.identity = keys.identity;
    this.fingerprint = keys.fingerprint;
  }

  /**
   * The set to fall back to when the server refused a newer client certificate: this (older) client
   * chain and key, but the trust bundle of {@code newest}. A client never falls back to an older
   * trust bundle (contract section 6 clarifications): a rotation that removed a CA stays.
   */
  public CredentialSet withTrustOf(CredentialSet newest) {
    return newest.trust.equals(trust) ? this : new CredentialSet(this, newest);
  }

  /** The JDK's PKIX checks over {@code trust}, then the server's name ({@link ServerNames}). */
  static X509ExtendedTrustManager trustManagerOf(List<X509Certificate> trust)
      throws java.security.GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      throw new java.security.KeyStoreException(e);
    }
    int i = 0;
    for (X509Certificate c : trust) {
      store.setCertificateEntry("trust-" + i++, c);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    for (javax.net.ssl.TrustManager tm : tmf.getTrustManagers()) {
      if (tm instanceof X509ExtendedTrustManager x) {
        return new ServerIdentityTrustManager(x);
      }
    }
    throw new java.security.KeyStoreException("no X509ExtendedTrustManager available");
  }

  static String sha256(X509Certificate cert) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Increases by one for every installed set; 1 is the set read at start-up. */
  public long generation() {
    return generation;
  }

  public X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  /**
   * Verifies the server's chain against the configured trust bundle only (never the JDK default
   * store), and its name against the host of the engine ({@link ServerNames}).
   */
  public X509ExtendedTrustManager trustManager() {
    return trustManager;
  }

  public List<X509Certificate> chain() {
    return chain;
  }

  public List<X509Certificate> trustAnchors() {
    return trust;
  }

  /** The workerId of the leaf certificate (URI SAN {@code ql3w://worker/{id}}, else CN). */
  public String identity() {
    return identity;
  }

  /** Lowercase hex SHA-256 of the leaf certificate's DER encoding. */
  public String leafFingerprint() {
    return fingerprint;
  }

  public BigInteger serial() {
    return chain.get(0).getSerialNumber();
  }

  public Instant notAfter() {
    return chain.get(0).getNotAfter().toInstant();
  }

  /** Whole days left before the leaf expires (negative once expired). */
  public long daysToExpiry(Clock clock) {
    return Duration.between(clock.instant(), notAfter()).toDays();
  }

  /** Loggable facts only; no key material. */
  @Override
  public String toString() {
    return "CredentialSet[generation="
        + generation
        + ", identity="
        + identity
        + ", sha256="
        + fingerprint
        + ", serial="
        + serial().toString(16)
        + ", notAfter="
        + utcSeconds(notAfter())
        + "]";
  }

  /**
   * {@code 2026-12-06T07:52:00Z}, as {@link Instant#toString()} writes a whole second, without its
   * {@code DateTimeFormatter}, whose classes and tables the edge agent otherwise never loads
   * (docs/perf/edge.md, "Eleventh pass").
   */
  static String utcSeconds(Instant t) {
    LocalDateTime utc = LocalDateTime.ofEpochSecond(t.getEpochSecond(), 0, ZoneOffset.UTC);
    String time = utc.toLocalTime().toString(); // "HH:mm" when the seconds are zero
    return utc.toLocalDate() + "T" + (time.length() == 5 ? time + ":00" : time) + "Z";
  }
}
