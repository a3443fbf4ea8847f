package io.ql3.worker.transport;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.http.Fault;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.testing.KeyStores;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTP-level statuses and faults from wiremock (Jetty) over real TLS 1.3 mTLS, http/1.1: each
 * status's class, retry-after, resets, a server that never answers, cap+1, slow drip, garbage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WireMockFaultTest {
  private static final SessionId SESSION = new SessionId(Vectors.SESSION);
  private Path dir;
  private Fixture fixture;
  private WireMockServer wiremock;
  private IngressClient shared;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("wiremock-fault");
    fixture = new Fixture(dir);
    wiremock =
        new WireMockServer(
            WireMockConfiguration.options()
                .httpDisabled(true)
                .dynamicHttpsPort()
                .bindAddress("127.0.0.1")
                .http2TlsDisabled(true)
                .keystorePath(
                    KeyStores.keyStore(dir.resolve("server.p12"), fixture.server).toString())
                .keystorePassword(KeyStores.PASSWORD)
                .keyManagerPassword(KeyStores.PASSWORD)
                .keystoreType("PKCS12")
                .needClientAuth(true)
                .trustStorePath(
                    KeyStores.trustStore(dir.resolve("trust.p12"), fixture.ca.cert()).toString())
                .trustStorePassword(KeyStores.PASSWORD)
                .trustStoreType("PKCS12"));
    wiremock.start();
    shared = client(Fixture.settings());
  }

  @AfterAll
  void stop() {
    shared.close();
    wiremock.stop();
  }

  @BeforeEach
  void reset() {
    wiremock.resetAll();
  }

  private IngressClient client(TransportSettings settings) throws Exception {
    return IngressClient.open(
        new IngressEndpoint("127.0.0.1", wiremock.httpsPort()),
        WorkerId.of(Vectors.WORKER),
        fixture.provider(),
        settings);
  }

  private void stub(String suffix, ResponseDefinitionBuilder response) {
    wiremock.stubFor(post(urlPathMatching(".*/" + suffix)).willReturn(response));
  }

  /**
   * The deadline counts from submission, connect and handshake included: connect first on a loaded
   * machine.
   */
  private void warmUp(IngressClient client) throws Exception {
    stub(
        "heartbeat",
        aResponse().withStatus(200).withBody(Vectors.response("heartbeat-active.json")));
    for (int i = 0; i < 5; i++) {
      if (client.heartbeat(SESSION, hb()).get(20, TimeUnit.SECONDS).isSuccess()) {
        return;
      }
    }
    throw new AssertionError("could not warm up the connection");
  }

  private static HeartbeatRequest hb() throws Exception {
    return HeartbeatRequest.parse(Vectors.request("heartbeat-active.json"));
  }

  private static IngressResult<?> await(
      java.util.concurrent.CompletableFuture<? extends IngressResult<?>> f) throws Exception {
    return f.get(20, TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "HTTP {0} {1} -> {2}")
  @CsvSource({
    "400, error-400-contract-violation.json, CLIENT_BUG",
    "413, error-413-payload-too-large.json, CLIENT_BUG",
    "404, error-404-unknown-operation.json, CLIENT_BUG",
    "405, error-405-unknown-operation.json, CLIENT_BUG",
    "401, error-401-credential-rejected.json, CREDENTIAL_REJECTED",
    "403, error-403-identity-mismatch.json, CREDENTIAL_REJECTED",
    "409, error-409-session-fenced.json, FENCED",
    "429, error-429-rate-limited.json, TRANSIENT",
    "503, error-503-unavailable.json, TRANSIENT",
    "500, error-503-unavailable.json, OUTCOME_UNKNOWN",
    "502, error-503-unavailable.json, OUTCOME_UNKNOWN",
    "409, error-409-run-not-leased.json, FENCED",
    "503, error-401-credential-rejected.json, TRANSIENT",
    "401, error-409-session-fenced.json, CREDENTIAL_REJECTED",
    "418, error-400-contract-violation.json, DRIFT",
    "204, heartbeat-active.json, DRIFT",
    "200, heartbeat-active.json, SUCCESS",
    "200, transition-draining.json, DRIFT"
  })
  void heartbeatStatusIsClassified(int status, String body, AnswerKind expected) throws Exception {
    stub("heartbeat", aResponse().withStatus(status).withBody(Vectors.response(body)));
    IngressResult<?> r = await(shared.heartbeat(SESSION, hb()));
    assertThat(r.kind()).isEqualTo(expected);
    assertThat(r.request().body()).isEqualTo(Vectors.request("heartbeat-active.json"));
    if (status != 204) {
      assertThat(r.httpStatus()).isEqualTo(status);
    }
  }

  @Test
  void completeConflictIsRunNotLeasedAndASessionCodeThereIsFenced() throws Exception {
    CompleteRequest req = CompleteRequest.parse(Vectors.request("complete-succeeded.json"));
    stub(
        "complete",
        aResponse().withStatus(409).withBody(Vectors.response("error-409-run-not-leased.json")));
    IngressResult<?> r = await(shared.complete(SESSION, new RunId(Vectors.RUN), req));
    assertThat(r.kind()).isEqualTo(AnswerKind.RUN_NOT_LEASED);
    assertThat(r.error().orElseThrow().code().wire()).isEqualTo("run_not_leased");
    stub(
        "complete",
        aResponse().withStatus(409).withBody(Vectors.response("error-409-session-fenced.json")));
    assertThat(await(shared.complete(SESSION, new RunId(Vectors.RUN), req)).kind())
        .isEqualTo(AnswerKind.FENCED);
  }

  @Test
  void retryAfterSecondsAreReported() throws Exception {
    stub(
        "heartbeat",
        aResponse()
            .withStatus(429)
            .withHeader("retry-after", "17")
            .withBody(Vectors.response("error-429-rate-limited.json")));
    IngressResult<?> r = await(shared.heartbeat(SESSION, hb()));
    assertThat(r.kind()).isEqualTo(AnswerKind.TRANSIENT);
    assertThat(r.retryAfter()).contains(Duration.ofSeconds(17));
    assertThat(r.resendable()).isTrue();
    stub(
        "heartbeat",
        aResponse()
            .withStatus(503)
            .withHeader("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")
            .withBody(Vectors.response("error-503-unavailable.json")));
    IngressResult<?> date = await(shared.heartbeat(SESSION, hb()));
    assertThat(date.kind()).isEqualTo(AnswerKind.TRANSIENT);
    assertThat(date.retryAfter()).isEmpty();
  }

  @Test
  void connectionResetIsOutcomeUnknownWithTheExactBytesForResend() throws Exception {
    try (IngressClient client = client(Fixture.settings())) {
      stub("heartbeat", aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
      IngressResult<?> r = await(client.heartbeat(SESSION, hb()));
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(r.request().body()).isEqualTo(Vectors.request("heartbeat-active.json"));
      // The next try resends the identical bytes on a new connection and succeeds.
      stub(
          "heartbeat",
          aResponse().withStatus(200).withBody(Vectors.response("heartbeat-active.json")));
      @SuppressWarnings("unchecked")
      IngressResult<io.ql3.worker.contract.HeartbeatResponse> unknown =
          (IngressResult<io.ql3.worker.contract.HeartbeatResponse>) r;
      assertThat(await(client.resend(unknown)).kind()).isEqualTo(AnswerKind.SUCCESS);
      assertThat(client.connectionsOpened()).isEqualTo(2);
      assertThat(client.maxOpenSockets()).isEqualTo(1);
    }
  }

  @Test
  void resetInTheMiddleOfTheBodyIsOutcomeUnknown() throws Exception {
    try (IngressClient client = client(Fixture.settings())) {
      stub("heartbeat", aResponse().withFault(Fault.MALFORMED_RESPONSE_CHUNK));
      IngressResult<?> r = await(client.heartbeat(SESSION, hb()));
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
    }
  }

  @Test
  void emptyResponseIsOutcomeUnknown() throws Exception {
    try (IngressClient client = client(Fixture.settings())) {
      stub("heartbeat", aResponse().withFault(Fault.EMPTY_RESPONSE));
      assertThat(await(client.heartbeat(SESSION, hb())).kind())
          .isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
    }
  }

  @Test
  void garbageInsteadOfHttpIsOutcomeUnknown() throws Exception {
    try (IngressClient client = client(Fixture.settings())) {
      stub("heartbeat", aResponse().withFault(Fault.RANDOM_DATA_THEN_CLOSE));
      IngressResult<?> r = await(client.heartbeat(SESSION, hb()));
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isIn(TransportFailure.Reason.MALFORMED_RESPONSE, TransportFailure.Reason.RESET);
    }
  }

  @Test
  void serverThatNeverAnswersHitsTheDeadline() throws Exception {
    try (IngressClient client =
        client(Fixture.settings().withResponseTimeout(Duration.ofMillis(500)))) {
      warmUp(client);
      stub(
          "heartbeat",
          aResponse()
              .withStatus(200)
              .withFixedDelay(5_000)
              .withBody(Vectors.response("heartbeat-active.json")));
      IngressResult<?> r = await(client.heartbeat(SESSION, hb()));
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.TIMEOUT);
    }
  }

  @Test
  void bodyOneByteOverTheCapIsRejected() throws Exception {
    stub("heartbeat", aResponse().withStatus(200).withBody(TestServer.bytes(4097, ' ')));
    IngressResult<?> r = await(shared.heartbeat(SESSION, hb()));
    assertThat(r.kind()).isEqualTo(AnswerKind.DRIFT);
    assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
        .isEqualTo(TransportFailure.Reason.RESPONSE_TOO_LARGE);
  }

  /**
   * Section 6 clarifications: a non-200 is classified by its status before its body, whatever its
   * size.
   */
  @ParameterizedTest(name = "HTTP {0} with a 5 KB text/html body -> {1}")
  @CsvSource({
    "503, TRANSIENT",
    "429, TRANSIENT",
    "502, OUTCOME_UNKNOWN",
    "504, OUTCOME_UNKNOWN",
    "401, CREDENTIAL_REJECTED",
    "400, CLIENT_BUG",
    "409, FENCED",
    "302, DRIFT"
  })
  void aNonSuccessOverTheErrorCapIsClassifiedByItsStatus(int status, AnswerKind expected)
      throws Exception {
    String html = "<html><body>" + "x".repeat(5 * 1024) + "</body></html>";
    stub(
        "heartbeat",
        aResponse()
            .withStatus(status)
            .withHeader("content-type", "text/html")
            .withHeader("retry-after", "7")
            .withBody(html));
    IngressResult<?> r = await(shared.heartbeat(SESSION, hb()));
    assertThat(r.kind()).as(r.toString()).isEqualTo(expected);
    assertThat(r.httpStatus()).isEqualTo(status);
    if (expected == AnswerKind.TRANSIENT) {
      assertThat(r.retryAfter()).as("its row honours retry-after").contains(Duration.ofSeconds(7));
    } else {
      assertThat(r.retryAfter()).isEmpty();
    }
  }

  @Test
  void slowDripSlowerThanTheDeadlineIsCutOff() throws Exception {
    try (IngressClient client =
        client(Fixture.settings().withResponseTimeout(Duration.ofMillis(600)))) {
      warmUp(client);
      stub(
          "heartbeat",
          aResponse()
              .withStatus(200)
              .withBody(Vectors.response("heartbeat-active.json"))
              .withChunkedDribbleDelay(10, 4_000));
      IngressResult<?> r = await(client.heartbeat(SESSION, hb()));
      assertThat(r.kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
      assertThat(((TransportFailure) r.cause().orElseThrow()).reason())
          .isEqualTo(TransportFailure.Reason.TIMEOUT);
    }
  }
}
