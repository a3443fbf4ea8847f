package io.ql3.worker.transport.credentials;

import io.netty.util.NetUtil;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * Whether a server certificate names the endpoint the client dialled (contract section 1: "MUST
 * verify the server name or IP against the configured endpoint"), by the rules of RFC 6125 that the
 * JDK's "HTTPS" endpoint identification applies, minus its look-up of the JDK's public CA store
 * (docs/transport.md, "Server identity"):
 *
 * <ul>
 *   <li>an IP literal (IPv4, or IPv6 with or without brackets) matches only an {@code iPAddress}
 *       subject alternative name with the same address; it is never resolved and never matched
 *       against a name;
 *   <li>a DNS name matches a {@code dNSName} SAN, compared as ASCII without case and without one
 *       trailing dot; {@code *} is allowed only as the whole leftmost label, stands for exactly one
 *       non-empty label, and needs at least two labels after it ({@code *.example} matches
 *       nothing); a partial wildcard ({@code w*.example.com}) matches nothing;
 *   <li>the subject's most specific common name is read, by the same rules, only when the
 *       certificate has no {@code dNSName} SAN at all.
 * </ul>
 *
 * Names with characters outside ASCII are compared as they are (no IDNA conversion).
 */
final class ServerNames {
  private static final int SAN_DNS = 2;
  private static final int SAN_IP = 7;

  private ServerNames() {}

  /**
   * @throws ServerIdentityException when {@code cert} does not name {@code host}; the message lists
   *     the names it does carry
   */
  static void check(String host, X509Certificate cert) throws ServerIdentityException {
    if (host == null || host.isEmpty()) {
      throw new ServerIdentityException(
          "no endpoint host to verify the server certificate against");
    }
    Collection<List<?>> sans;
    try {
      sans = cert.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new ServerIdentityException(
          "cannot read the server certificate's subject alternative names: " + e.getMessage());
    }
    List<String> dns = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    if (sans != null) {
      for (List<?> san : sans) {
        Object type = san.get(0);
        Object value = san.get(1);
        if (value instanceof String s && type instanceof Integer t) {
          if (t == SAN_DNS) {
            dns.add(s);
          } else if (t == SAN_IP) {
            ips.add(s);
          }
        }
      }
    }
    byte[] address = ipLiteral(host);
    if (address != null) {
      for (String ip : ips) {
        if (Arrays.equals(address, ipLiteral(ip))) {
          return;
        }
      }
      throw mismatch(host, "its IP address names are " + ips);
    }
    String name = dnsForm(host);
    if (!dns.isEmpty()) {
      for (String pattern : dns) {
        if (matches(name, dnsForm(pattern))) {
          return;
        }
      }
      throw mismatch(host, "its DNS names are " + dns);
    }
    String cn = commonName(cert.getSubjectX500Principal());
    if (cn != null && matches(name, dnsForm(cn))) {
      return;
    }
    throw mismatch(host, "it has no DNS name and its common name is " + cn);
  }

  /** The address of an IP literal, or null when {@code s} is not one (never a DNS look-up). */
  static byte[] ipLiteral(String s) {
    String literal = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
    return NetUtil.createByteArrayFromIpAddressString(literal);
  }

  /** Whether DNS name {@code name} matches {@code pattern}, both already in {@link #dnsForm}. */
  static boolean matches(String name, String pattern) {
    if (name.isEmpty() || pattern.isEmpty()) {
      return false;
    }
    if (pattern.indexOf('*') < 0) {
      return name.equals(pattern);
    }
    if (!pattern.startsWith("*.") || pattern.indexOf('*', 1) >= 0) {
      return false; // a partial or inner wildcard
    }
    String suffix = pattern.substring(1); // ".example.com"
    if (suffix.indexOf('.', 1) < 0) {
      return false; // "*.example" would cover a whole top-level domain
    }
    int firstDot = name.indexOf('.');
    return firstDot > 0 && name.substring(firstDot).equals(suffix);
  }

  /** ASCII lower case without one trailing dot. */
  static String dnsForm(String name) {
    String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    return n.toLowerCase(Locale.ROOT);
  }

  /** The most specific CN of {@code subject} (the last in {@link LdapName}'s order), or null. */
  private static String commonName(X500Principal subject) throws ServerIdentityException {
    String found = null;
    try {
      for (Rdn rdn : new LdapName(subject.getName(X500Principal.RFC2253)).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN") && rdn.getValue() instanceof String cn) {
          found = cn;
        }
      }
    } catch (InvalidNameException e) {
      throw new ServerIdentityException(
          "cannot parse the server certificate's subject: " + e.getMessage());
    }
    return found;
  }

  private static ServerIdentityException mismatch(String host, String names) {
    return new ServerIdentityException(
        "the server certificate does not name " + host + ": " + names);
  }
}
