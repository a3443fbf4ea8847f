package io.ql3.worker.controlplane.pki;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * The worker identity a client certificate proves (contract section 2): the URI SAN {@code
 * ql3w://worker/{id}}, or the subject CN when the certificate has no URI SAN at all.
 */
public final class WorkerIdentity {
  public static final String URI_PREFIX = "ql3w://worker/";
  private static final int SAN_URI = 6;

  private WorkerIdentity() {}

  /** Empty when the certificate names no worker (a URI SAN of another form, or no CN). */
  public static Optional<String> of(X509Certificate certificate) {
    Collection<List<?>> sans;
    try {
      sans = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return Optional.empty();
    }
    boolean anyUri = false;
    if (sans != null) {
      for (List<?> san : sans) {
        if (san.size() >= 2 && Integer.valueOf(SAN_URI).equals(san.get(0))) {
          anyUri = true;
          String uri = String.valueOf(san.get(1));
          if (uri.startsWith(URI_PREFIX) && uri.length() > URI_PREFIX.length()) {
            return Optional.of(uri.substring(URI_PREFIX.length()));
          }
        }
      }
    }
    if (anyUri) {
      return Optional.empty();
    }
    try {
      LdapName name = new LdapName(certificate.getSubjectX500Principal().getName());
      for (Rdn rdn : name.getRdns()) {
        if ("CN".equalsIgnoreCase(rdn.getType())) {
          return Optional.of(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
