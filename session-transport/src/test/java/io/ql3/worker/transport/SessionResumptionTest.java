package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handshakes as the SERVER counts them (its trust manager verifies a client chain only in a full
 * handshake; TLS 1.3 resumption sends no CertificateRequest): one per connection however many
 * requests it carries; a reconnect with the same credential generation resumes the session from
 * that generation's SSLContext; a reconnect after a rotation does a full handshake and shows the
 * new certificate.
 */
class SessionResumptionTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  private static HeartbeatRequest hb() throws Exception {
    return HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
  }

  /**
   * Every answer says {@code connection: close}: the client closes after it, so the next request
   * reconnects.
   */
  private static CompletableFuture<TestServer.Reply> answerThenClose(TestServer.Request r) {
    return CompletableFuture.completedFuture(
        new TestServer.Respond(
            200, Map.of("connection", "close"), Vectors.response("heartbeat-active.json")));
  }

  private static void heartbeatOk(IngressClient client) throws Exception {
    IngressResult<?> r = client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS);
    assertThat(r.kind()).as("heartbeat result: %s", r).isEqualTo(AnswerKind.SUCCESS);
  }

  @Test
  void h2ConnectionDoesExactlyOneHandshakeForManyRequests() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      for (int i = 0; i < 40; i++) {
        heartbeatOk(client);
      }
      assertThat(client.protocol()).isEqualTo("h2");
      assertThat(server.requests()).hasSize(40);
      assertThat(server.connections()).isEqualTo(1);
      assertThat(server.completedHandshakes()).isEqualTo(1);
      assertThat(server.fullHandshakes()).isEqualTo(1);
      assertThat(client.connectionsOpened()).isEqualTo(1);
    }
  }

  @Test
  void http11KeepAliveConnectionDoesExactlyOneHandshakeForManyRequests() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(Fixture::vectorAnswer)
                .start();
        IngressClient client = f.client(server)) {
      for (int i = 0; i < 40; i++) {
        heartbeatOk(client);
      }
      assertThat(client.protocol()).isEqualTo("http/1.1");
      assertThat(server.requests()).hasSize(40);
      assertThat(server.connections()).isEqualTo(1);
      assertThat(server.completedHandshakes()).isEqualTo(1);
      assertThat(server.fullHandshakes()).isEqualTo(1);
    }
  }

  @Test
  void reconnectWithTheSameGenerationResumesAndARotationForcesAFullHandshakeWithTheNewCertificate()
      throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(SessionResumptionTest::answerThenClose)
                .start();
        IngressClient client = f.client(server)) {
      for (int i = 0; i < 4; i++) {
        heartbeatOk(client);
      }
      // Four connections, one after the other; only the first verified our certificate.
      assertThat(server.connections()).isEqualTo(4);
      assertThat(server.completedHandshakes()).isEqualTo(4);
      assertThat(server.fullHandshakes()).isEqualTo(1);
      assertThat(server.resumedHandshakes()).isEqualTo(3);
      assertThat(server.clientCertificates())
          .containsExactlyElementsOf(Collections.nCopies(4, f.client.sha256()));

      TestPki.Issued next = f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
      f.creds.rotateAtomically(next);
      f.clock.realNowPlus(SETTLE);
      heartbeatOk(client); // generation 2: new SSLContext, empty session cache: full handshake
      heartbeatOk(client); // and that generation's session resumes in turn
      assertThat(server.connections()).isEqualTo(6);
      assertThat(server.fullHandshakes()).isEqualTo(2);
      assertThat(server.resumedHandshakes()).isEqualTo(4);
      assertThat(server.clientCertificates().subList(4, 6))
          .containsExactly(next.sha256(), next.sha256());
      assertThat(server.requests())
          .extracting(TestServer.Request::clientSha256)
          .containsExactly(
              f.client.sha256(),
              f.client.sha256(),
              f.client.sha256(),
              f.client.sha256(),
              next.sha256(),
              next.sha256());
      assertThat(client.maxOpenSockets()).isEqualTo(1);
    }
  }
}
