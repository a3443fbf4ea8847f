package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.transport.testing.TestPki;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server-name rules, on real certificates from the test CA. */
class ServerNamesTest {
  private static final TestPki.Issued CA = TestPki.rootCa("names CA");

  private static X509Certificate cert(String cn, List<String> dns, List<String> ips) {
    return CA.issue(TestPki.Spec.forServer().commonName(cn).names(dns, ips)).cert();
  }

  private static boolean accepts(String host, X509Certificate cert) {
    try {
      ServerNames.check(host, cert);
      return true;
    } catch (ServerIdentityException e) {
      return false;
    }
  }

  @Test
  void aDnsNameMatchesWithoutCaseAndWithoutOneTrailingDot() {
    X509Certificate c = cert("x", List.of("Ingress.Example.COM"), List.of());
    assertThat(accepts("ingress.example.com", c)).isTrue();
    assertThat(accepts("INGRESS.example.com.", c)).isTrue();
    assertThat(accepts("ingress.example.co", c)).isFalse();
    assertThat(accepts("ingress.example.com..", c)).isFalse();
    assertThat(accepts("other.ingress.example.com", c)).isFalse();
  }

  @Test
  void aWildcardStandsForExactlyOneWholeLeftmostLabel() {
    X509Certificate c = cert("x", List.of("*.ingress.example"), List.of());
    assertThat(accepts("a.ingress.example", c)).isTrue();
    assertThat(accepts("worker-7.ingress.example", c)).isTrue();
    assertThat(accepts("ingress.example", c)).isFalse();
    assertThat(accepts("a.b.ingress.example", c)).isFalse();
    assertThat(accepts(".ingress.example", c)).isFalse();
  }

  @Test
  void aWildcardOverATopLevelDomainOrAMalformedSuffixMatchesNothing() {
    assertThat(accepts("example.com", cert("x", List.of("*.com"), List.of()))).isFalse();
    assertThat(accepts("x.a.example", cert("x", List.of("*.a.example."), List.of()))).isFalse();
    assertThat(accepts("x.a.example", cert("x", List.of("*..a.example"), List.of()))).isFalse();
    assertThat(accepts("x.a.example", cert("x", List.of("*.a_b.example"), List.of()))).isFalse();
  }

  @Test
  void onlyAsciiLetterDigitHyphenNamesMatch() {
    assertThat(accepts("a_b.example", cert("x", List.of("a_b.example"), List.of()))).isFalse();
    assertThat(accepts("-a.example", cert("x", List.of("-a.example"), List.of()))).isFalse();
    assertThat(accepts("a..example", cert("x", List.of("a..example"), List.of()))).isFalse();
    assertThat(accepts("a.example", cert("x", List.of("a.example."), List.of())))
        .as("a presented name ending in a dot")
        .isFalse();
  }

  @Test
  void anIpLiteralMatchesOnlyAnIpAddressNameOfTheSameAddress() {
    X509Certificate byName = cert("127.0.0.1", List.of("127.0.0.1", "localhost"), List.of());
    assertThat(accepts("127.0.0.1", byName)).as("a DNS name spelled like the IP").isFalse();

    X509Certificate byIp = cert("x", List.of("localhost"), List.of("127.0.0.1", "::1"));
    assertThat(accepts("127.0.0.1", byIp)).isTrue();
    assertThat(accepts("127.0.0.2", byIp)).isFalse();
    assertThat(accepts("::1", byIp)).isTrue();
    assertThat(accepts("[::1]", byIp)).isTrue();
    assertThat(accepts("0:0:0:0:0:0:0:1", byIp)).isTrue();
    assertThat(accepts("::2", byIp)).isFalse();
    assertThat(accepts("[]", byIp)).isFalse();
  }

  @Test
  void oddIpv4FormsAreRefusedAndMixedIpv6FormsCompareByAddress() {
    X509Certificate c =
        cert(
            "2130706433", List.of("2130706433", "127.1"), List.of("127.0.0.1", "64:ff9b::102:304"));
    assertThat(accepts("2130706433", c)).as("127.0.0.1 as one number").isFalse();
    assertThat(accepts("127.1", c)).isFalse();
    assertThat(accepts("127.0.0.1.", c)).isFalse();
    assertThat(accepts("64:ff9b::1.2.3.4", c)).isTrue();
    assertThat(accepts("[64:ff9b::1.2.3.4]", c)).isTrue();
    assertThat(accepts("::ffff:127.0.0.1", c)).as("IPv4-mapped is the IPv4 address").isTrue();
  }

  @Test
  void theCommonNameIsNeverRead() {
    assertThat(accepts("ingress.example", cert("ingress.example", List.of(), List.of()))).isFalse();
    assertThat(accepts("ingress.example", cert("ingress.example", List.of(), List.of("10.0.0.1"))))
        .isFalse();
    assertThat(accepts("10.0.0.1", cert("10.0.0.1", List.of(), List.of()))).isFalse();
  }

  @Test
  void aRefusalNamesTheHostAndTheCertificatesNames() {
    X509Certificate c = cert("x", List.of("ingress.example"), List.of("10.9.8.7"));
    assertThatThrownBy(() -> ServerNames.check("localhost", c))
        .isInstanceOf(ServerIdentityException.class)
        .hasMessageContaining("localhost")
        .hasMessageContaining("[ingress.example]");
    assertThatThrownBy(() -> ServerNames.check("127.0.0.1", c))
        .isInstanceOf(ServerIdentityException.class)
        .hasMessageContaining("[10.9.8.7]");
  }

  @Test
  void withoutAHostNothingIsAccepted() throws Exception {
    X509Certificate c = cert("x", List.of("localhost"), List.of("127.0.0.1"));
    assertThat(accepts(null, c)).isFalse();
    assertThat(accepts("", c)).isFalse();
    ServerIdentityTrustManager tm =
        (ServerIdentityTrustManager) CredentialSet.trustManagerOf(List.of(CA.cert()));
    assertThatThrownBy(() -> tm.checkServerTrusted(new X509Certificate[] {c}, "UNKNOWN"))
        .as("the form that knows no host")
        .isInstanceOf(ServerIdentityException.class);
    assertThatCode(() -> ServerNames.check("localhost", c)).doesNotThrowAnyException();
  }
}
