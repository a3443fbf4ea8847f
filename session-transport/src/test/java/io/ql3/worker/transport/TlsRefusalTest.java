package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections the client must refuse: each with a specific reason and not one application byte
 * sent.
 */
class TlsRefusalTest {
  @TempDir Path tmp;

  private IngressResult<HeartbeatResponse> heartbeat(Fixture f, TestServer server)
      throws Exception {
    return heartbeat(f, server, "127.0.0.1");
  }

  private IngressResult<HeartbeatResponse> heartbeat(Fixture f, TestServer server, String host)
      throws Exception {
    try (IngressClient client = f.client(server, host, Fixture.settings())) {
      return client
          .heartbeat(
              new SessionId(Vectors.SESSION),
              HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
          .get(20, TimeUnit.SECONDS);
    }
  }

  private static TransportFailure.Reason reasonOf(IngressResult<?> r) {
    return ((TransportFailure) r.cause().orElseThrow()).reason();
  }

  @Test
  void tls12OnlyServerIsRefused() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().protocol("TLSv1.2").start()) {
      IngressResult<HeartbeatResponse> r = heartbeat(f, server);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.TLS_PROTOCOL_VERSION);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void serverFromAnUnknownCaIsRefused() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued otherCa = TestPki.rootCa("other CA");
    try (TestServer server =
        TestServer.builder()
            .certificate(otherCa.issue(TestPki.Spec.forServer()))
            .clientCa(f.ca.cert())
            .start()) {
      IngressResult<HeartbeatResponse> r = heartbeat(f, server);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.SERVER_UNTRUSTED);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void serverCertificateForAnotherNameIsRefused() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued wrongName =
        f.ca.issue(TestPki.Spec.forServer().names(List.of("ingress.example"), List.of("10.9.8.7")));
    try (TestServer server =
        TestServer.builder().certificate(wrongName).clientCa(f.ca.cert()).start()) {
      IngressResult<HeartbeatResponse> r = heartbeat(f, server);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.HOSTNAME_MISMATCH);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void serverNamedOnlyByDnsIsAcceptedByThatNameAndRefusedByItsAddress() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued dnsOnly =
        f.ca.issue(
            TestPki.Spec.forServer()
                .commonName("127.0.0.1")
                .names(List.of("localhost"), List.of()));
    try (TestServer server =
        TestServer.builder()
            .certificate(dnsOnly)
            .clientCa(f.ca.cert())
            .responder(Fixture::vectorAnswer)
            .start()) {
      assertThat(heartbeat(f, server, "localhost").kind()).isEqualTo(AnswerKind.SUCCESS);

      IngressResult<HeartbeatResponse> byIp = heartbeat(f, server, "127.0.0.1");
      assertThat(byIp.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(byIp)).isEqualTo(TransportFailure.Reason.HOSTNAME_MISMATCH);
      assertThat(server.requests()).hasSize(1);
    }
  }

  @Test
  void expiredServerCertificateIsRefused() throws Exception {
    Fixture f = new Fixture(tmp);
    Instant now = Instant.now();
    TestPki.Issued expired =
        f.ca.issue(
            TestPki.Spec.forServer()
                .validity(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1))));
    try (TestServer server =
        TestServer.builder().certificate(expired).clientCa(f.ca.cert()).start()) {
      IngressResult<HeartbeatResponse> r = heartbeat(f, server);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.SERVER_CERTIFICATE_EXPIRED);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void clientKeyNotMatchingTheCertificateIsALocalErrorAndNoConnectionIsMade() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.writeSecret(
        f.creds.files().privateKey(), TestPki.pkcs8Pem(TestPki.ecKeys().getPrivate()));
    try (TestServer server = f.serverBuilder().start()) {
      assertThatThrownBy(f::provider)
          .isInstanceOfSatisfying(
              CredentialException.class,
              e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.KEY_MISMATCH));
      assertThat(server.connections()).isZero();
    }
  }

  @Test
  void expiredClientCertificateIsNeverSent() throws Exception {
    Fixture f = new Fixture(tmp);
    Instant now = Instant.now();
    TestPki.Issued expired =
        f.ca.issue(
            TestPki.Spec.forClient(Vectors.WORKER)
                .validity(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1))));
    new CredentialDir(f.creds.dir()).write(expired, f.ca, CredentialDir.TOKEN);
    assertThatThrownBy(f::provider)
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> assertThat(e.reason()).isEqualTo(CredentialException.Reason.CERTIFICATE_EXPIRED));
  }

  @Test
  void serverRejectingTheClientCertificateAfterTheTls13HandshakeIsCredentialRejected()
      throws Exception {
    Fixture f = new Fixture(tmp);
    // Client certificate from a second CA that our bundle trusts but the server does not.
    TestPki.Issued clientCa = TestPki.rootCa("client CA");
    TestPki.Issued client = clientCa.issue(TestPki.Spec.forClient(Vectors.WORKER));
    new CredentialDir(f.creds.dir()).write(client, f.ca, CredentialDir.TOKEN);
    java.nio.file.Files.writeString(
        f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), clientCa.cert()));
    try (TestServer server = f.serverBuilder().start()) {
      IngressResult<HeartbeatResponse> r = heartbeat(f, server);
      // Once a request was written the refusal is a TLS failure of it (outcome unknown).
      boolean written = ((TransportFailure) r.cause().orElseThrow()).requestSent();
      assertThat(r.kind())
          .isEqualTo(written ? AnswerKind.OUTCOME_UNKNOWN : AnswerKind.CREDENTIAL_REJECTED);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void workerIdOtherThanTheCertificateIdentityIsAStartUpErrorNamingBoth() throws Exception {
    Fixture f = new Fixture(tmp);
    assertThatThrownBy(
            () ->
                CredentialProvider.load(
                    f.creds.files(), "edge-0002", f.clock, CredentialProvider.Settings.defaults()))
        .isInstanceOfSatisfying(
            CredentialException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(CredentialException.Reason.IDENTITY_MISMATCH);
              assertThat(e.getMessage()).contains("edge-0002").contains("edge-0001");
            });
  }

  @Test
  void serverThatAcceptsButNeverHandshakesHitsTheHandshakeDeadline() throws Exception {
    Fixture f = new Fixture(tmp);
    try (java.net.ServerSocket silent =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                try (java.net.Socket s = silent.accept()) {
                  s.getInputStream().readAllBytes(); // read the ClientHello, never answer
                } catch (java.io.IOException ignored) {
                  // closed by the test
                }
              },
              "silent-acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
      try (IngressClient client =
          IngressClient.open(
              new IngressEndpoint("127.0.0.1", silent.getLocalPort()),
              io.ql3.worker.contract.WorkerId.of(Vectors.WORKER),
              f.provider(),
              Fixture.settings().withHandshakeTimeout(Duration.ofMillis(300)))) {
        IngressResult<?> r =
            client
                .heartbeat(
                    new SessionId(Vectors.SESSION),
                    HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
                .get(20, TimeUnit.SECONDS);
        assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
        assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.HANDSHAKE_TIMEOUT);
      }
    }
  }

  @Test
  void refusedTcpConnectIsNotSent() throws Exception {
    Fixture f = new Fixture(tmp);
    int port;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (IngressClient client =
        IngressClient.open(
            new IngressEndpoint("127.0.0.1", port),
            io.ql3.worker.contract.WorkerId.of(Vectors.WORKER),
            f.provider(),
            Fixture.settings())) {
      IngressResult<?> r =
          client
              .heartbeat(
                  new SessionId(Vectors.SESSION),
                  HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
              .get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
      assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.CONNECT_FAILED);
      assertThat(r.request().body()).isEqualTo(Vectors.request("heartbeat-active.json"));
    }
  }

  @Test
  void refusedServerIsRetriedOnlyAfterBackoffAndNeverHotLoops() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().protocol("TLSv1.2").start();
        IngressClient client =
            f.client(
                server,
                Fixture.settings()
                    .withBackoff(Duration.ofSeconds(30), Duration.ofSeconds(60))
                    .withResponseTimeout(Duration.ofMillis(300)))) {
      HeartbeatRequest hb = HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
      SessionId s = new SessionId(Vectors.SESSION);
      assertThat(client.heartbeat(s, hb).get(10, TimeUnit.SECONDS).kind())
          .isEqualTo(AnswerKind.NOT_SENT);
      // Within the backoff window, the next tries wait and time out unsent: no new socket.
      for (int i = 0; i < 3; i++) {
        IngressResult<HeartbeatResponse> r = client.heartbeat(s, hb).get(10, TimeUnit.SECONDS);
        assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT);
        assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.TIMEOUT);
      }
      assertThat(server.connections()).isEqualTo(1);
      assertThat(client.connectionsOpened()).isEqualTo(1);
    }
  }
}
