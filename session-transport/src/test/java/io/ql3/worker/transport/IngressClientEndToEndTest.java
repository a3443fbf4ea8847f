package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole session over one real TLS 1.3 mTLS connection, h2 and http/1.1. */
class IngressClientEndToEndTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);

  @TempDir Path tmp;

  @Test
  void h2RunsEveryOperationOnOneConnectionWithAPullParkedWhileHeartbeatAndCompleteFlow()
      throws Exception {
    Fixture f = new Fixture(tmp);
    CompletableFuture<TestServer.Reply> parkedPull = new CompletableFuture<>();
    CompletableFuture<Void> pullArrived = new CompletableFuture<>();
    try (TestServer server =
            f.serverBuilder()
                .responder(
                    r -> {
                      if (r.path().endsWith("/pull")) {
                        pullArrived.complete(null);
                        return parkedPull;
                      }
                      return Fixture.vectorAnswer(r);
                    })
                .start();
        IngressClient client = f.client(server)) {
      assertThat(
              client
                  .register(SESSION, RegisterRequest.parse(Vectors.request("register-edge.json")))
                  .get(10, TimeUnit.SECONDS)
                  .kind())
          .isEqualTo(AnswerKind.SUCCESS);
      assertThat(
              client
                  .heartbeat(
                      SESSION, HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
                  .get(10, TimeUnit.SECONDS)
                  .value()
                  .version())
          .isEqualTo(2);

      CompletableFuture<IngressResult<PullResponse>> pull =
          client.pull(
              SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      pullArrived.get(10, TimeUnit.SECONDS);
      // While the pull is parked on its stream, a heartbeat and a completion go through.
      assertThat(Fixture.heartbeatSucceeds(client, SESSION)).isTrue();
      assertThat(
              client
                  .complete(
                      SESSION,
                      new RunId(Vectors.RUN),
                      CompleteRequest.parse(Vectors.request("complete-succeeded.json")))
                  .get(10, TimeUnit.SECONDS)
                  .isSuccess())
          .isTrue();
      assertThat(pull).isNotDone();
      parkedPull.complete(
          new TestServer.Respond(200, Map.of(), Vectors.response("pull-empty.json")));
      IngressResult<PullResponse> pulled = pull.get(10, TimeUnit.SECONDS);
      assertThat(pulled.kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(pulled.value().offers()).isEmpty();
      assertThat(
              client
                  .transition(
                      SESSION,
                      TransitionRequest.parse(Vectors.request("transition-active-draining.json")))
                  .get(10, TimeUnit.SECONDS)
                  .isSuccess())
          .isTrue();

      assertThat(client.protocol()).isEqualTo("h2");
      assertThat(server.connections()).isEqualTo(1);
      assertThat(client.connectionsOpened()).isEqualTo(1);
      List<TestServer.Request> seen = server.requests();
      assertThat(seen)
          .extracting(TestServer.Request::path)
          .containsExactly(
              base() + "register",
              base() + "heartbeat",
              base() + "pull",
              base() + "heartbeat",
              base() + "runs/" + Vectors.RUN + "/complete",
              base() + "transition");
      assertThat(seen)
          .allSatisfy(
              r -> {
                assertThat(r.protocol()).isEqualTo("h2");
                assertThat(r.connection()).isEqualTo(1);
                assertThat(r.method()).isEqualTo("POST");
                assertThat(r.headers())
                    .containsEntry("authorization", "Bearer " + CredentialDir.TOKEN)
                    .containsEntry("content-type", "application/json")
                    .containsEntry("accept", "application/json")
                    .containsEntry("user-agent", "ql3-worker/0.1.0-test");
              });
      // Bytes on the wire are the canonical vector bytes.
      assertThat(seen.get(0).body()).isEqualTo(Vectors.request("register-edge.json"));
      assertThat(seen.get(2).body()).isEqualTo(Vectors.request("pull.json"));
      assertThat(seen.get(4).body()).isEqualTo(Vectors.request("complete-succeeded.json"));
      assertThat(server.clientCertificates()).containsExactly(f.client.sha256());
    }
  }

  @Test
  void http11OnlyServerGetsEveryOperationSeriallyOnOneKeepAliveConnection() throws Exception {
    Fixture f = new Fixture(tmp);
    // Each answer is delayed; a request arriving while another is unanswered would be pipelining.
    java.util.concurrent.atomic.AtomicInteger unanswered =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger maxUnanswered =
        new java.util.concurrent.atomic.AtomicInteger();
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(
                    r -> {
                      maxUnanswered.accumulateAndGet(unanswered.incrementAndGet(), Math::max);
                      return Fixture.vectorAnswer(r)
                          .thenApplyAsync(
                              reply -> {
                                unanswered.decrementAndGet();
                                return reply;
                              },
                              CompletableFuture.delayedExecutor(30, TimeUnit.MILLISECONDS));
                    })
                .start();
        IngressClient client = f.client(server)) {
      // Submitted together: http/1.1 sends them strictly one at a time on the one connection.
      var register =
          client.register(SESSION, RegisterRequest.parse(Vectors.request("register-edge.json")));
      var heartbeat =
          client.heartbeat(
              SESSION, HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")));
      var pull =
          client.pull(
              SESSION, PullRequest.parse(Vectors.request("pull.json")), OfferPolicy.CONTRACT);
      var complete =
          client.complete(
              SESSION,
              new RunId(Vectors.RUN),
              CompleteRequest.parse(Vectors.request("complete-succeeded.json")));
      var transition =
          client.transition(
              SESSION, TransitionRequest.parse(Vectors.request("transition-active-draining.json")));
      for (var r : List.of(register, heartbeat, pull, complete, transition)) {
        assertThat(r.get(10, TimeUnit.SECONDS).kind()).isEqualTo(AnswerKind.SUCCESS);
      }
      assertThat(client.protocol()).isEqualTo("http/1.1");
      assertThat(server.connections()).isEqualTo(1);
      assertThat(maxUnanswered.get()).as("requests outstanding at once").isEqualTo(1);
      assertThat(server.requests())
          .hasSize(5)
          .allSatisfy(
              r -> {
                assertThat(r.protocol()).isEqualTo("http/1.1");
                assertThat(r.headers())
                    .containsEntry("content-length", String.valueOf(r.body().length))
                    .containsEntry("host", "127.0.0.1:" + server.port());
              });
    }
  }

  /** HTTP lets a server send interim (1xx) responses before the final one: they are skipped. */
  @Test
  void interimResponsesBeforeTheAnswerAreSkippedOnHttp11() throws Exception {
    Fixture f = new Fixture(tmp);
    byte[] body = Vectors.response("heartbeat-active.json");
    byte[] head =
        ("HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 103 Early Hints\r\nlink: </hints>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                + body.length
                + "\r\nconnection: close\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] raw = java.util.Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, raw, head.length, body.length);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.HTTP11_ONLY)
                .responder(r -> CompletableFuture.completedFuture(new TestServer.Raw(raw.clone())))
                .start();
        IngressClient client = f.client(server)) {
      var answer =
          client
              .heartbeat(SESSION, HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
              .get(10, TimeUnit.SECONDS);
      assertThat(answer.kind()).as(answer.toString()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(client.protocol()).isEqualTo("http/1.1");
    }
  }

  @Test
  void aServerWithoutAlpnIsSpokenToInHttp11() throws Exception {
    Fixture f = new Fixture(tmp);
    try (TestServer server =
            f.serverBuilder()
                .alpn(TestServer.Alpn.NONE)
                .responder(r -> Fixture.vectorAnswer(r))
                .start();
        IngressClient client = f.client(server)) {
      var register =
          client.register(SESSION, RegisterRequest.parse(Vectors.request("register-edge.json")));
      assertThat(register.get(10, TimeUnit.SECONDS).kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(client.protocol()).isEqualTo("http/1.1");
      assertThat(server.requests())
          .singleElement()
          .satisfies(r -> assertThat(r.protocol()).isEqualTo("http/1.1"));
    }
  }

  private static String base() {
    return "/ql3w/v1/workers/" + Vectors.WORKER + "/sessions/" + Vectors.SESSION + "/";
  }
}
