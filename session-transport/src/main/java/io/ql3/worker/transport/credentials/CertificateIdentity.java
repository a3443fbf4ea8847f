package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * The worker identity of a client certificate: URI SAN {@code ql3w://worker/{id}}, else the subject
 * CN.
 */
final class CertificateIdentity {
  private static final String URI_PREFIX = "ql3w://worker/";
  private static final int SAN_URI = 6;
  static final Pattern WORKER_ID = Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$");

  private CertificateIdentity() {}

  static String of(X509Certificate leaf) throws CredentialException {
    Collection<List<?>> sans;
    try {
      sans = leaf.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new CredentialException(
          Reason.IDENTITY_MISSING, "cannot read subject alternative names", e);
    }
    boolean anyUri = false;
    if (sans != null) {
      for (List<?> san : sans) {
        if (((Integer) san.get(0)) == SAN_URI) {
          anyUri = true;
          String uri = (String) san.get(1);
          if (uri.startsWith(URI_PREFIX)) {
            return checked(uri.substring(URI_PREFIX.length()), "URI SAN " + uri);
          }
        }
      }
    }
    if (anyUri) {
      // A URI SAN exists but none is ours: the contract looks at the CN only without URI SANs.
      throw new CredentialException(
          Reason.IDENTITY_MISSING,
          "certificate has URI SANs but none of the form " + URI_PREFIX + "{workerId}");
    }
    try {
      LdapName name = new LdapName(leaf.getSubjectX500Principal().getName());
      for (Rdn rdn : name.getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return checked(rdn.getValue().toString(), "subject CN");
        }
      }
    } catch (InvalidNameException e) {
      throw new CredentialException(Reason.IDENTITY_MISSING, "cannot parse the subject name", e);
    }
    throw new CredentialException(
        Reason.IDENTITY_MISSING, "certificate has neither a ql3w URI SAN nor a subject CN");
  }

  private static String checked(String id, String source) throws CredentialException {
    if (!WORKER_ID.matcher(id).matches()) {
      throw new CredentialException(
          Reason.IDENTITY_MISSING, source + " is not a valid workerId: '" + id + "'");
    }
    return id;
  }
}
