package io.ql3.worker.transport.credentials;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Whether a server certificate names the endpoint the client dialled (contract section 1: "MUST
 * verify the server name or IP against the configured endpoint"), by the rules of RFC 6125 that the
 * JDK's "HTTPS" endpoint identification applies, minus its look-up of the JDK's public CA store
 * (docs/transport.md, "Server identity"), and stricter where said:
 *
 * <ul>
 *   <li>a host with a {@code :} is an IPv6 literal (brackets allowed), a host of digits and dots an
 *       IPv4 literal; either matches only an {@code iPAddress} subject alternative name with the
 *       same address, is never resolved, and is refused if it does not parse (the JDK's odd IPv4
 *       forms such as {@code 127.1} or {@code 2130706433} included);
 *   <li>any other host is a DNS name: ASCII letters, digits and hyphens, labels of 1 to 63
 *       characters without a leading or trailing hyphen, one trailing dot ignored; it matches a
 *       {@code dNSName} SAN of the same form compared without ASCII case; {@code *} is allowed only
 *       as the whole leftmost label, stands for exactly one label, and needs at least two labels
 *       after it ({@code *.example} matches nothing; there is no public-suffix list);
 *   <li>the subject's common name is never read (RFC 6125 section 6.4.4 allows it only without a
 *       DNS SAN; every certificate the agent should trust names its host in a SAN).
 * </ul>
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
    if (isIpForm(host)) {
      InetAddress address = ipLiteral(host);
      if (address == null) {
        throw new ServerIdentityException(
            "the endpoint host " + host + " is not an IP address literal this client accepts");
      }
      for (String ip : ips) {
        if (address.equals(ipLiteral(ip))) {
          return;
        }
      }
      throw mismatch(host, "its IP address names are " + ips);
    }
    String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    if (!isDnsName(name)) {
      throw new ServerIdentityException("the endpoint host " + host + " is not a DNS name");
    }
    for (String pattern : dns) {
      if (matches(asciiLower(name), pattern)) {
        return;
      }
    }
    throw mismatch(host, "its DNS names are " + dns);
  }

  /** Digits and dots only, or a colon anywhere: meant as an IP literal. */
  static boolean isIpForm(String host) {
    if (host.indexOf(':') >= 0) {
      return true;
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c != '.' && (c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }

  /**
   * The address of an IP literal, or null when {@code s} is not one. Never a DNS look-up: IPv4 in
   * dotted-quad form only (Netty's parser), IPv6 through the JDK in brackets (which it parses as a
   * literal or refuses, never resolves).
   */
  static InetAddress ipLiteral(String s) {
    String literal = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
    if (literal.isEmpty()) {
      return null;
    }
    try {
      if (literal.indexOf(':') >= 0) {
        return InetAddress.getByName("[" + literal + "]");
      }
      return NetUtil.isValidIpV4Address(literal) ? InetAddress.getByName(literal) : null;
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** Whether DNS name {@code name} (lower case, no trailing dot) matches SAN {@code pattern}. */
  static boolean matches(String name, String pattern) {
    if (pattern.startsWith("*.")) {
      String suffix = pattern.substring(2);
      if (!isDnsName(suffix) || suffix.indexOf('.') < 0) {
        return false; // a malformed suffix, or "*.example" over a whole top-level domain
      }
      int firstDot = name.indexOf('.');
      return firstDot > 0 && name.substring(firstDot + 1).equals(asciiLower(suffix));
    }
    return isDnsName(pattern) && name.equals(asciiLower(pattern));
  }

  /** ASCII letters, digits and hyphens in labels of 1..63, no hyphen at either end of a label. */
  static boolean isDnsName(String name) {
    if (name.isEmpty() || name.length() > 253) {
      return false;
    }
    int labelStart = 0;
    for (int i = 0; i <= name.length(); i++) {
      if (i == name.length() || name.charAt(i) == '.') {
        int len = i - labelStart;
        if (len < 1 || len > 63 || name.charAt(labelStart) == '-' || name.charAt(i - 1) == '-') {
          return false;
        }
        labelStart = i + 1;
        continue;
      }
      char c = name.charAt(i);
      boolean ldh =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ldh) {
        return false;
      }
    }
    return true;
  }

  private static String asciiLower(String s) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        if (b == null) {
          b = new StringBuilder(s);
        }
        b.setCharAt(i, (char) (c + ('a' - 'A')));
      }
    }
    return b == null ? s : b.toString();
  }

  private static ServerIdentityException mismatch(String host, String names) {
    return new ServerIdentityException(
        "the server certificate does not name " + host + ": " + names);
  }
}
