package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long poll goes out only on h2 (on http/1.1 it would block the one connection, contract section
 * 1), and a handshake-only probe ({@code check --connect}) or a connection opened ahead sends no
 * request at all.
 */
class LongPollAndHandshakeTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);

  @TempDir Path tmp;

  @Test
  void aLongPollIsRefusedUnsentOnHttp1AndItsResendToo() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(Fixture::vectorAnswer)
                .start();
        IngressClient client = f.client(server)) {
      IngressResult<PullResponse> r =
          client
              .longPoll(
                  SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT)
              .get(10, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.NOT_SENT_ON_HTTP1);
      assertThat(r.cause())
          .get()
          .isInstanceOfSatisfying(
              TransportFailure.class,
              t -> assertThat(t.reason()).isEqualTo(TransportFailure.Reason.HTTP1_CONNECTION));
      assertThat(r.request().h2Only()).isTrue();
      assertThat(client.protocol()).isEqualTo("http/1.1");
      assertThat(client.resend(r).get(10, TimeUnit.SECONDS).kind())
          .isEqualTo(AnswerKind.NOT_SENT_ON_HTTP1);
      // The connection stays usable for everything else.
      assertThat(Fixture.heartbeatSucceeds(client, SESSION)).isTrue();
      assertThat(server.requests())
          .extracting(TestServer.Request::path)
          .noneMatch(p -> p.endsWith("/pull"));
      assertThat(client.connectionsOpened()).isEqualTo(1);
    }
  }

  @Test
  void aLongPollGoesOutOnH2() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      IngressResult<PullResponse> r =
          client
              .longPoll(
                  SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT)
              .get(10, TimeUnit.SECONDS);
      assertThat(r.kind()).as(r.toString()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(server.requests()).extracting(TestServer.Request::protocol).containsExactly("h2");
    }
  }

  @Test
  void aHandshakeSendsNoRequestAndReportsWhatWasNegotiated() throws Exception {
    Fixture f = new Fixture(tmp);
    for (TestServer.Alpn alpn : TestServer.Alpn.values()) {
      try (TestServer server =
              f.serverBuilder().alpn(alpn).responder(Fixture::vectorAnswer).start();
          IngressClient client = f.client(server)) {
        Handshake h = client.handshake(Duration.ofMillis(200)).get(10, TimeUnit.SECONDS);
        assertThat(h.tlsVersion()).isEqualTo("TLSv1.3");
        boolean h2 = alpn == TestServer.Alpn.H2_AND_HTTP11;
        assertThat(h.protocol()).as(alpn.name()).isEqualTo(h2 ? "h2" : "http/1.1");
        assertThat(h.serverAccepted()).as("only an h2 server proves it").isEqualTo(h2);
        assertThat(server.requests()).isEmpty();
        assertThat(client.connectionsOpened()).isEqualTo(1);
      }
    }
  }

  @Test
  void aConnectionOpenedAheadSendsNothingAndCarriesTheFirstRequest() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      client.connectAhead();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (client.protocol() == null && System.nanoTime() < deadline) {
        Thread.sleep(5); // a condition, polled: the handshake runs on the transport's thread
      }
      assertThat(client.protocol()).as("negotiated before any request").isEqualTo("h2");
      client.connectAhead(); // already open: no second socket
      assertThat(server.requests()).isEmpty();
      assertThat(Fixture.heartbeatSucceeds(client, SESSION)).isTrue();
      assertThat(client.connectionsOpened()).isEqualTo(1);
      assertThat(server.connections()).isEqualTo(1);
    }
  }
}
