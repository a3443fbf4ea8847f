package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults on h2 streams (Netty test server): they end the one stream, never the connection, and caps
 * are counted over DATA frames as they arrive (flow-control credit only for bytes taken).
 */
class Http2FaultTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);

  @TempDir Path tmp;

  private final AtomicReference<Function<TestServer.Request, CompletableFuture<TestServer.Reply>>>
      pullReply = new AtomicReference<>();

  private TestServer server(Fixture f) throws Exception {
    return f.serverBuilder()
        .responder(
            r -> r.path().endsWith("/pull") ? pullReply.get().apply(r) : Fixture.vectorAnswer(r))
        .start();
  }

  private static CompletableFuture<TestServer.Reply> reply(TestServer.Reply r) {
    return CompletableFuture.completedFuture(r);
  }

  private static IngressResult<?> pull(IngressClient c) throws Exception {
    return c.pull(SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT)
        .get(20, TimeUnit.SECONDS);
  }

  /**
   * A heartbeat succeeds on the same connection (a few tries: short deadlines on a loaded 2-core
   * box).
   */
  private static void heartbeatStillWorks(IngressClient c, TestServer s) throws Exception {
    HeartbeatRequest hb = HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
    boolean ok = false;
    for (int i = 0; i < 5 && !ok; i++) {
      ok = c.heartbeat(SESSION, hb).get(20, TimeUnit.SECONDS).kind() == AnswerKind.SUCCESS;
    }
    assertThat(ok).as("a heartbeat succeeded").isTrue();
    assertThat(s.connections()).isEqualTo(1);
    assertThat(c.protocol()).isEqualTo("h2");
  }

  /**
   * After a GOAWAY a heartbeat succeeds on a new connection, never two open at once (a heartbeat
   * racing the GOAWAY may be refused unsent or reset; the next one reconnects).
   */
  private static void heartbeatOnASecondConnection(IngressClient c, TestServer s) throws Exception {
    HeartbeatRequest hb = HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
    IngressResult<?> r = null;
    for (int i = 0; i < 3 && (r == null || !r.isSuccess()); i++) {
      r = c.heartbeat(SESSION, hb).get(20, TimeUnit.SECONDS);
    }
    assertThat(r.kind()).isEqualTo(AnswerKind.SUCCESS);
    assertThat(s.connections()).isEqualTo(2);
    assertThat(c.maxOpenSockets()).isEqualTo(1);
  }

  @Test
  void streamResetIsOutcomeUnknownAndTheConnectionLivesOn() throws Exception {
    Fixture f = new Fixture(tmp);
    pullReply.set(r -> reply(new TestServer.Reset()));
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      IngressResult<?> r = pull(c);
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.RESET);
      assertThat(r.request().body()).isEqualTo(Vectors.request("pull.json"));
      heartbeatStillWorks(c, s);
    }
  }

  @Test
  void unansweredStreamHitsItsDeadlineAndOnlyThatStreamIsReset() throws Exception {
    Fixture f = new Fixture(tmp);
    pullReply.set(r -> new CompletableFuture<>());
    try (TestServer s = server(f);
        IngressClient c =
            f.client(s, Fixture.settings().withResponseTimeout(Duration.ofMillis(3000)))) {
      heartbeatStillWorks(c, s); // connect first: the deadline counts from submission
      // pull.json has waitMs 20000: its deadline is response timeout + waitMs; use a short one here
      IngressResult<?> r =
          c.pull(
                  SESSION,
                  new PullRequest(
                      7, 3, PullRequest.parse(Vectors.request("pull.json")).pullId(), 0),
                  OfferPolicy.CONTRACT)
              .get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.TIMEOUT);
      heartbeatStillWorks(c, s);
    }
  }

  @Test
  void pullAnswerOfExactlyTheCapIsAcceptedAcrossManyFlowControlWindows() throws Exception {
    Fixture f = new Fixture(tmp);
    byte[] atCap = Vectors.response("pull-at-cap.json");
    assertThat(atCap).hasSize(1_048_576);
    pullReply.set(r -> reply(new TestServer.Stream(200, atCap, 16_384)));
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      IngressResult<?> r = pull(c);
      assertThat(r.kind()).isEqualTo(AnswerKind.SUCCESS);
    }
  }

  @Test
  void pullAnswerOneByteOverTheCapIsRejectedWhileStreaming() throws Exception {
    Fixture f = new Fixture(tmp);
    byte[] overCap = Arrays.copyOf(Vectors.response("pull-at-cap.json"), 1_048_577);
    overCap[overCap.length - 1] = ' ';
    pullReply.set(r -> reply(new TestServer.Stream(200, overCap, 16_384)));
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      IngressResult<?> r = pull(c);
      assertThat(r.kind()).isEqualTo(AnswerKind.DRIFT);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.RESPONSE_TOO_LARGE);
      heartbeatStillWorks(c, s);
    }
  }

  @Test
  void declaredLengthOverTheCapIsRejectedBeforeTheBodyAndTheStatusDecides() throws Exception {
    Fixture f = new Fixture(tmp);
    pullReply.set(r -> reply(new TestServer.Respond(503, Map.of(), TestServer.bytes(5000, ' '))));
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      IngressResult<?> r = pull(c);
      assertThat(r.kind())
          .as("a 503 is transient whatever its body")
          .isEqualTo(AnswerKind.TRANSIENT);
      assertThat(r.cause().orElseThrow().getMessage()).contains("declared content-length 5000");
      heartbeatStillWorks(c, s);
    }
  }

  @Test
  void slowDripIsCutOffByTheDeadline() throws Exception {
    Fixture f = new Fixture(tmp);
    pullReply.set(r -> reply(new TestServer.Drip(Vectors.response("pull-empty.json"), 1000)));
    try (TestServer s = server(f);
        IngressClient c =
            f.client(s, Fixture.settings().withResponseTimeout(Duration.ofMillis(3000)))) {
      heartbeatStillWorks(c, s);
      IngressResult<?> r =
          c.pull(
                  SESSION,
                  new PullRequest(
                      7, 3, PullRequest.parse(Vectors.request("pull.json")).pullId(), 0),
                  OfferPolicy.CONTRACT)
              .get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.TIMEOUT);
      heartbeatStillWorks(c, s);
    }
  }

  @Test
  void goAwayLetsTheAnswerThroughAndTheNextExchangeReconnects() throws Exception {
    Fixture f = new Fixture(tmp);
    pullReply.set(
        r ->
            reply(
                new TestServer.RespondThenGoAway(
                    new TestServer.Respond(200, Map.of(), Vectors.response("pull-empty.json")))));
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      assertThat(pull(c).kind()).isEqualTo(AnswerKind.SUCCESS);
      heartbeatOnASecondConnection(c, s);
    }
  }

  /**
   * A server going away (GOAWAY) while a pull is parked: the pull is aborted (outcome unknown, so
   * it is resent with the same pullId) instead of holding the old connection open for its whole
   * wait, and the next exchange goes out on a new connection, never two at once. Without the abort
   * the parked pull here is never answered and the old connection never closes.
   */
  @Test
  void goAwayAbortsAParkedPullSoTheConnectionIsReplaced() throws Exception {
    Fixture f = new Fixture(tmp);
    CompletableFuture<Void> arrived = new CompletableFuture<>();
    pullReply.set(
        r -> {
          arrived.complete(null);
          return new CompletableFuture<>(); // parked, never answered
        });
    java.util.concurrent.atomic.AtomicBoolean goAwaySent =
        new java.util.concurrent.atomic.AtomicBoolean();
    try (TestServer s =
            f.serverBuilder()
                .responder(
                    r -> {
                      if (r.path().endsWith("/pull")) {
                        return pullReply.get().apply(r);
                      }
                      CompletableFuture<TestServer.Reply> answer = Fixture.vectorAnswer(r);
                      if (r.path().endsWith("/heartbeat")
                          && goAwaySent.compareAndSet(false, true)) {
                        return answer.thenApply(
                            a -> new TestServer.RespondThenGoAway((TestServer.Respond) a));
                      }
                      return answer;
                    })
                .start();
        IngressClient c = f.client(s)) {
      var pull =
          c.pull(SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      arrived.get(20, TimeUnit.SECONDS);
      HeartbeatRequest hb = HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
      assertThat(c.heartbeat(SESSION, hb).get(20, TimeUnit.SECONDS).kind())
          .isEqualTo(AnswerKind.SUCCESS);

      IngressResult<?> r = pull.get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.ABORTED);
      assertThat(r.request().body()).isEqualTo(Vectors.request("pull.json"));

      heartbeatOnASecondConnection(c, s);
    }
  }

  @Test
  void abortPullsEndsAParkedPullAsOutcomeUnknown() throws Exception {
    Fixture f = new Fixture(tmp);
    CompletableFuture<Void> arrived = new CompletableFuture<>();
    pullReply.set(
        r -> {
          arrived.complete(null);
          return new CompletableFuture<>();
        });
    try (TestServer s = server(f);
        IngressClient c = f.client(s)) {
      var pull =
          c.pull(SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      arrived.get(20, TimeUnit.SECONDS);
      c.abortPulls();
      IngressResult<?> r = pull.get(20, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.ABORTED);
      heartbeatStillWorks(c, s);
    }
  }
}
