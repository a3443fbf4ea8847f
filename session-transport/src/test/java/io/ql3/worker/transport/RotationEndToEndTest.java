package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credential rotation as the server sees it: new certificate on the next connection, token on the
 * next request.
 */
class RotationEndToEndTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  private static HeartbeatRequest hb() throws Exception {
    return HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
  }

  @Test
  void rotatedCertificateIsPresentedOnTheNextConnectionAndAParkedPullIsResentByteIdentical()
      throws Exception {
    Fixture f = new Fixture(tmp);
    CompletableFuture<TestServer.Reply> firstPull = new CompletableFuture<>();
    CompletableFuture<Void> pullArrived = new CompletableFuture<>();
    try (TestServer server =
            f.serverBuilder()
                .responder(
                    r -> {
                      if (r.path().endsWith("/pull") && r.connection() == 1) {
                        pullArrived.complete(null);
                        return firstPull; // parked until aborted
                      }
                      return Fixture.vectorAnswer(r);
                    })
                .start();
        IngressClient client = f.client(server)) {
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      CompletableFuture<IngressResult<PullResponse>> pull =
          client.pull(
              SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      pullArrived.get(10, TimeUnit.SECONDS);

      TestPki.Issued next = f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
      f.creds.rotateAtomically(next);
      f.clock.realNowPlus(SETTLE);
      // The next request sees the new generation: the parked pull is aborted (h2), the
      // connection closed at that quiet moment, and the heartbeat goes out on a new one.
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      IngressResult<PullResponse> aborted = pull.get(10, TimeUnit.SECONDS);
      assertThat(aborted.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) aborted.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.ABORTED);

      IngressResult<PullResponse> resent = client.resend(aborted).get(10, TimeUnit.SECONDS);
      assertThat(resent.kind()).isEqualTo(AnswerKind.SUCCESS);

      assertThat(server.clientCertificates()).containsExactly(f.client.sha256(), next.sha256());
      assertThat(server.connections()).isEqualTo(2);
      assertThat(client.maxOpenSockets()).isEqualTo(1); // break before make
      var pulls = server.requests().stream().filter(r -> r.path().endsWith("/pull")).toList();
      assertThat(pulls).hasSize(2);
      assertThat(pulls.get(1).body())
          .isEqualTo(pulls.get(0).body())
          .isEqualTo(Vectors.request("pull.json"));
      assertThat(pulls.get(1).connection()).isEqualTo(2);
    }
  }

  @Test
  void newCertificateRejectedByTheServerFallsBackToThePreviousValidOne() throws Exception {
    Fixture f = new Fixture(tmp);
    // Our bundle also trusts a second CA; the server accepts client certificates of the first only.
    TestPki.Issued otherCa = TestPki.rootCa("second client CA");
    Files.writeString(f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), otherCa.cert()));
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      TestPki.Issued refused = otherCa.issue(TestPki.Spec.forClient(Vectors.WORKER));
      f.creds.rotateAtomically(refused);
      f.clock.realNowPlus(SETTLE);
      IngressResult<?> rejected = client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS);
      boolean written = ((TransportFailure) rejected.cause().orElseThrow()).requestSent();
      assertThat(rejected.kind())
          .isEqualTo(written ? AnswerKind.OUTCOME_UNKNOWN : AnswerKind.CREDENTIAL_REJECTED);
      IngressResult<?> again = client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS);
      assertThat(again.kind()).isEqualTo(AnswerKind.SUCCESS);
      // Connection 2 presented the refused certificate (its handshake failed on the server, so it
      // is not recorded); connection 3 is back on the previous, still valid one.
      assertThat(server.clientCertificates()).containsExactly(f.client.sha256(), f.client.sha256());
      assertThat(server.connections()).isEqualTo(3);
      assertThat(client.maxOpenSockets()).isEqualTo(1);
    }
  }

  /** A refused newest set is not stuck to: it is tried again after five backoff bounds. */
  @Test
  void aRefusedNewestSetIsTriedAgainOnASchedule() throws Exception {
    Fixture f = new Fixture(tmp);
    TestPki.Issued otherCa = TestPki.rootCa("second client CA");
    Files.writeString(f.creds.files().trustBundle(), TestPki.pem(f.ca.cert(), otherCa.cert()));
    // Tried again after 5 x 400 ms: the window the fallback heartbeat (a reconnect and a
    // handshake) must fall into, wide enough for a loaded machine.
    Duration bound = Duration.ofMillis(400);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client =
            f.client(server, Fixture.settings().withBackoff(Duration.ofMillis(20), bound))) {
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      f.creds.rotateAtomically(otherCa.issue(TestPki.Spec.forClient(Vectors.WORKER)));
      f.clock.realNowPlus(SETTLE);
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isFalse();
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess())
          .as("fallback")
          .isTrue();
      assertThat(server.connections()).isEqualTo(3);
      Thread.sleep(
          bound.multipliedBy(5).plusMillis(200).toMillis()); // the schedule itself is under test
      client
          .heartbeat(SESSION, hb())
          .get(10, TimeUnit.SECONDS); // goes out on the newest set: refused again
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess())
          .as("fallback")
          .isTrue();
      assertThat(server.connections()).as("the newest set was tried again").isEqualTo(5);
      assertThat(client.maxOpenSockets()).isEqualTo(1);
    }
  }

  @Test
  void mismatchedPairKeepsTheOldSetWorkingOnTheSameConnection() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      TestPki.Issued next = f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
      Files.writeString(f.creds.files().certificateChain(), TestPki.chainPem(next)); // key left old
      f.clock.realNowPlus(SETTLE);
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(server.connections()).isEqualTo(1);
      assertThat(server.clientCertificates()).containsExactly(f.client.sha256());
    }
  }

  @Test
  void tokenRotationTakesEffectOnTheNextRequestWithoutReconnecting() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(Fixture::vectorAnswer)
                .start();
        IngressClient client = f.client(server)) {
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      f.creds.rotateToken("tok_rotated-0000000000000");
      f.clock.realNowPlus(SETTLE);
      assertThat(client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(server.requests())
          .extracting(r -> r.headers().get("authorization"))
          .containsExactly("Bearer " + CredentialDir.TOKEN, "Bearer tok_rotated-0000000000000");
      assertThat(server.connections()).isEqualTo(1);
    }
  }

  @Test
  void invalidTokenFileIsALocalErrorAndNothingIsSent() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server = f.serverBuilder().responder(Fixture::vectorAnswer).start();
        IngressClient client = f.client(server)) {
      f.creds.rotateToken("has space inside the token");
      f.clock.realNowPlus(SETTLE);
      IngressResult<?> r = client.heartbeat(SESSION, hb()).get(10, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.LOCAL_CREDENTIAL_ERROR);
      assertThat(server.connections()).isZero();
    }
  }

  @Test
  void http11RotationWaitsForTheInFlightPullInsteadOfAbortingIt() throws Exception {
    Fixture f = new Fixture(tmp);
    CompletableFuture<TestServer.Reply> pullAnswer = new CompletableFuture<>();
    CompletableFuture<Void> pullArrived = new CompletableFuture<>();
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(
                    r -> {
                      if (r.path().endsWith("/pull")) {
                        pullArrived.complete(null);
                        return pullAnswer;
                      }
                      return Fixture.vectorAnswer(r);
                    })
                .start();
        IngressClient client = f.client(server)) {
      var pull =
          client.pull(
              SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      pullArrived.get(10, TimeUnit.SECONDS);
      TestPki.Issued next = f.ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
      f.creds.rotateAtomically(next);
      f.clock.realNowPlus(SETTLE);
      var heartbeat = client.heartbeat(SESSION, hb());
      pullAnswer.complete(
          new TestServer.Respond(200, Map.of(), Vectors.response("pull-empty.json")));
      assertThat(pull.get(10, TimeUnit.SECONDS).kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(heartbeat.get(10, TimeUnit.SECONDS).kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(server.clientCertificates()).containsExactly(f.client.sha256(), next.sha256());
      assertThat(client.maxOpenSockets()).isEqualTo(1);
    }
  }
}
