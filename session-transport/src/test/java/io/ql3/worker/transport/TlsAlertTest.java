package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.OperationPath;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.credentials.CredentialSet;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS alerts and what they may mean (section 6 clarifications): a refusal of our certificate counts
 * only after the server proved its identity; after a request was written it is a TLS failure of
 * that request; a fallback never takes an older trust bundle; a credential change reconnects at
 * once, whatever the backoff.
 */
class TlsAlertTest {
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  private static HeartbeatRequest hb() throws Exception {
    return HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
  }

  private static TransportFailure.Reason reasonOf(IngressResult<?> r) {
    return ((TransportFailure) r.cause().orElseThrow()).reason();
  }

  /**
   * An on-path attacker answers the ClientHello with a plaintext fatal {@code bad_certificate}
   * alert. The server never proved its identity: a TLS failure, not a refusal of our certificate
   * (which would make a client fall back to older credentials).
   */
  @Test
  void aPlaintextAlertBeforeTheServerProvedItselfIsATlsFailure() throws Exception {
    Fixture f = new Fixture(tmp);
    try (ServerSocket attacker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                try (Socket s = attacker.accept()) {
                  InputStream in = s.getInputStream();
                  in.read(new byte[5]); // the start of the ClientHello record
                  OutputStream out = s.getOutputStream();
                  out.write(
                      new byte[] {
                        0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x2a
                      }); // fatal bad_certificate
                  out.flush();
                  Thread.sleep(200);
                } catch (Exception ignored) {
                  // the test reads the client's verdict
                }
              });
      t.setDaemon(true);
      t.start();
      try (IngressClient client =
          IngressClient.open(
              new IngressEndpoint("127.0.0.1", attacker.getLocalPort()),
              WorkerId.of(Vectors.WORKER),
              f.provider(),
              Fixture.settings())) {
        IngressResult<HeartbeatResponse> r =
            client.heartbeat(new SessionId(Vectors.SESSION), hb()).get(20, TimeUnit.SECONDS);
        assertThat(r.kind()).as(r.toString()).isEqualTo(AnswerKind.NOT_SENT);
        assertThat(reasonOf(r)).isEqualTo(TransportFailure.Reason.TLS_FAILURE);
      }
    }
  }

  /** A refusal that reaches a request already written is a TLS failure of it: outcome unknown. */
  @Test
  void aRefusalAfterTheRequestWasWrittenIsOutcomeUnknown() throws Exception {
    SentRequest req =
        new SentRequest(
            OperationPath.heartbeat(WorkerId.of(Vectors.WORKER), new SessionId(Vectors.SESSION)),
            hb().toCanonicalBytes(),
            (ResultClassifier.Parser<HeartbeatResponse>) HeartbeatResponse::parse,
            Duration.ofSeconds(5),
            false);
    TransportFailure written =
        new TransportFailure(
            TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED,
            true,
            "received fatal alert: bad_certificate",
            null);
    TransportFailure unsent =
        new TransportFailure(
            TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED,
            false,
            "received fatal alert: bad_certificate",
            null);
    assertThat(ResultClassifier.classify(req, written).kind())
        .isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
    assertThat(ResultClassifier.classify(req, unsent).kind())
        .isEqualTo(AnswerKind.CREDENTIAL_REJECTED);
  }

  /**
   * End to end: after a refusal, the next h2 connection sends nothing before the server's SETTINGS
   * prove it accepted us, so a repeated refusal is credentials rejected, unsent, and the server saw
   * no request.
   */
  @Test
  void afterARefusalTheNextRequestIsHeldUntilTheServerAcceptsUs() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued clientCa = TestPki.rootCa("client CA");
    new CredentialDir(f.creds.dir())
        .write(clientCa.issue(TestPki.Spec.forClient(Vectors.WORKER)), f.ca, CredentialDir.TOKEN);
    Files.writeString(f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), clientCa.cert()));
    try (TestServer server = f.serverBuilder().start();
        IngressClient client =
            f.client(
                server,
                Fixture.settings().withBackoff(Duration.ofMillis(50), Duration.ofMillis(100)))) {
      IngressResult<HeartbeatResponse> first =
          client.heartbeat(new SessionId(Vectors.SESSION), hb()).get(20, TimeUnit.SECONDS);
      boolean written = ((TransportFailure) first.cause().orElseThrow()).requestSent();
      assertThat(first.kind())
          .isEqualTo(written ? AnswerKind.OUTCOME_UNKNOWN : AnswerKind.CREDENTIAL_REJECTED);
      IngressResult<HeartbeatResponse> again =
          client.heartbeat(new SessionId(Vectors.SESSION), hb()).get(20, TimeUnit.SECONDS);
      assertThat(again.kind()).as(again.toString()).isEqualTo(AnswerKind.CREDENTIAL_REJECTED);
      assertThat(reasonOf(again)).isEqualTo(TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED);
      assertThat(server.requests()).isEmpty();
    }
  }

  /**
   * A refused certificate puts the connection in a long backoff; a credential change reconnects at
   * once ("at once when a credential file changes" holds at the socket too).
   */
  @Test
  void aCredentialChangeReconnectsAtOnceWhateverTheBackoff() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued clientCa = TestPki.rootCa("client CA");
    new CredentialDir(f.creds.dir())
        .write(clientCa.issue(TestPki.Spec.forClient(Vectors.WORKER)), f.ca, CredentialDir.TOKEN);
    Files.writeString(f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), clientCa.cert()));
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client =
            f.client(
                server,
                Fixture.settings().withBackoff(Duration.ofMinutes(10), Duration.ofMinutes(10)))) {
      IngressResult<HeartbeatResponse> refused =
          client.heartbeat(new SessionId(Vectors.SESSION), hb()).get(20, TimeUnit.SECONDS);
      assertThat(refused.isSuccess()).isFalse();
      f.creds.rotateAtomically(f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER)));
      f.clock.realNowPlus(SETTLE);
      IngressResult<HeartbeatResponse> after =
          client.heartbeat(new SessionId(Vectors.SESSION), hb()).get(20, TimeUnit.SECONDS);
      assertThat(after.kind()).as(after.toString()).isEqualTo(AnswerKind.SUCCESS);
    }
  }

  /** The set a refused rotation falls back to has the older keys and the newest trust bundle. */
  @Test
  void aFallbackKeepsTheNewestTrustBundle() throws Exception {
    Fixture f = new Fixture(tmp);
    CredentialProvider provider = f.provider();
    CredentialSet first = provider.current().tls();
    TestPki.Issued newCa = TestPki.rootCa("rotated CA");
    Files.writeString(f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), newCa.cert()));
    f.creds.rotateAtomically(f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER)));
    f.clock.realNowPlus(SETTLE);
    CredentialSet newest = provider.checkNow().tls();
    assertThat(newest.generation()).isGreaterThan(first.generation());
    CredentialSet fallback = provider.previousStillValid().orElseThrow().withTrustOf(newest);
    assertThat(fallback.chain()).isEqualTo(first.chain());
    assertThat(fallback.generation()).isEqualTo(first.generation());
    assertThat(fallback.trustAnchors()).isEqualTo(newest.trustAnchors()).contains(newCa.cert());
    assertThat(first.trustAnchors()).doesNotContain(newCa.cert());
  }
}
