package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OfferSpecTest {

  private static ViolationReason specViolation(String executor, String json) {
    ContractViolation v =
        catchThrowableOfType(
            ContractViolation.class,
            () -> ExecutorSpec.parse(executor, json.getBytes(StandardCharsets.UTF_8)));
    return v == null ? null : v.reason();
  }

  @ParameterizedTest(name = "cwd {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "\"jobs/0117\"|",
        "\".\"|",
        "\"a..b/c\"|",
        "\"a/./b\"|",
        "null|",
        "\"\"|OUT_OF_RANGE",
        "\"/abs\"|OUT_OF_RANGE",
        "\"..\"|OUT_OF_RANGE",
        "\"a/../b\"|OUT_OF_RANGE",
        "\"a/..\"|OUT_OF_RANGE",
        "\"a\\\\b\"|OUT_OF_RANGE",
        "\"a\\u0000b\"|OUT_OF_RANGE",
        "7|WRONG_TYPE",
      })
  void processCwd(String cwd, ViolationReason expected) {
    assertThat(specViolation("process", "{\"argv\":[\"x\"],\"cwd\":" + cwd + ",\"env\":{}}"))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"argv\":[],\"cwd\":null,\"env\":{}}|OUT_OF_RANGE",
        "{\"argv\":[\"\"],\"cwd\":null,\"env\":{}}|OUT_OF_RANGE",
        "{\"argv\":[1],\"cwd\":null,\"env\":{}}|WRONG_TYPE",
        "{\"argv\":[null],\"cwd\":null,\"env\":{}}|NULL_NOT_ALLOWED",
        "{\"argv\":\"x\",\"cwd\":null,\"env\":{}}|WRONG_TYPE",
        "{\"argv\":[\"a\\u0000\"],\"cwd\":null,\"env\":{}}|OUT_OF_RANGE",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{\"A-B\":\"1\"}}|BAD_IDENTIFIER",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{\"1A\":\"1\"}}|BAD_IDENTIFIER",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{\"A\":1}}|WRONG_TYPE",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{\"A\":\"\\u0000\"}}|OUT_OF_RANGE",
        "{\"argv\":[\"x\"],\"cwd\":null}|MISSING_MEMBER",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{},\"user\":\"root\"}|UNKNOWN_MEMBER",
        "[]|WRONG_TYPE",
        "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{\"_a\":\"\"}}|",
      })
  void processRules(String json, ViolationReason expected) {
    assertThat(specViolation("process", json)).isEqualTo(expected);
  }

  @Test
  void processLimitsCountCodePoints() {
    String rocket = "\ud83d\ude80";
    assertThat(
            specViolation(
                "process", "{\"argv\":[\"" + rocket.repeat(4096) + "\"],\"cwd\":null,\"env\":{}}"))
        .isNull();
    assertThat(
            specViolation(
                "process", "{\"argv\":[\"" + "a".repeat(4097) + "\"],\"cwd\":null,\"env\":{}}"))
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
    StringBuilder env = new StringBuilder();
    for (int i = 0; i < 129; i++) {
      env.append(i == 0 ? "" : ",").append("\"V").append(i).append("\":\"x\"");
    }
    assertThat(specViolation("process", "{\"argv\":[\"x\"],\"cwd\":null,\"env\":{" + env + "}}"))
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "noop|{}|",
        "noop|{\"x\":1}|UNKNOWN_MEMBER",
        "sleep|{\"ms\":0}|",
        "sleep|{\"ms\":86400000}|",
        "sleep|{\"ms\":86400001}|OUT_OF_RANGE",
        "sleep|{\"ms\":\"5\"}|WRONG_TYPE",
        "sleep|{}|MISSING_MEMBER",
        "fail|{\"category\":\"transient\",\"code\":\"injected\"}|",
        "fail|{\"category\":\"fatal\",\"code\":\"injected\"}|OUT_OF_RANGE",
        "fail|{\"category\":\"permanent\",\"code\":\"Injected\"}|BAD_IDENTIFIER",
        "fail|{\"category\":\"permanent\",\"code\":\"x\",\"message\":\"m\"}|UNKNOWN_MEMBER",
        "container|{\"image\":\"x\",\"any\":[1,{}]}|",
        "container|[1]|WRONG_TYPE",
        "container|null|NULL_NOT_ALLOWED",
      })
  void builtInExecutors(String executor, String json, ViolationReason expected) {
    assertThat(specViolation(executor, json)).isEqualTo(expected);
  }

  @Test
  void typedSpecsRoundTrip() throws Exception {
    ProcessSpec p =
        new ProcessSpec(List.of("/bin/echo", "hi"), "jobs/1", Map.of("B", "2", "A", "1"));
    assertThat(new String(p.toCanonicalBytes(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"argv\":[\"/bin/echo\",\"hi\"],\"cwd\":\"jobs/1\",\"env\":{\"A\":\"1\",\"B\":\"2\"}}");
    assertThat(ExecutorSpec.parse("process", p.toCanonicalBytes())).isEqualTo(p);
    assertThat(ExecutorSpec.parse("sleep", new SleepSpec(250).toCanonicalBytes()))
        .isEqualTo(new SleepSpec(250));
    FailSpec f = new FailSpec(FailureCategory.TRANSIENT, "injected_failure");
    assertThat(f.digest())
        .isEqualTo("sha256:b13baaf14503f9d752fa15abfeacc5256a5aba98cfd2e76a0fba4ea7fc5cc81f");
    assertThat(NoopSpec.INSTANCE.digest())
        .isEqualTo("sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  }

  @Test
  void oneOfferRulesInOrder() {
    ProcessSpec p = new ProcessSpec(List.of("x"), null, Map.of());
    Offer ok = Offer.of(1, "k", new RunId("r1"), p, 1000);
    OfferPolicy policy = new OfferPolicy(Set.of("process"), 16384);
    assertThat(ok.checked(policy).rejection()).isEmpty();
    assertThat(ok.checked(policy).executorSpec()).contains(p);
    assertThat(
            ok.checked(new OfferPolicy(Set.of("noop"), 16384)).rejection().orElseThrow().reason())
        .isEqualTo(OfferRejection.Reason.UNADVERTISED_EXECUTOR);
    int size = p.toCanonicalBytes().length;
    assertThat(ok.checked(new OfferPolicy(Set.of("process"), size)).rejection()).isEmpty();
    assertThat(
            ok.checked(new OfferPolicy(Set.of("process"), size - 1))
                .rejection()
                .orElseThrow()
                .reason())
        .isEqualTo(OfferRejection.Reason.SPEC_TOO_LARGE);
    Offer wrongDigest =
        new Offer(
            1,
            "process",
            "k",
            new RunId("r1"),
            p.toJson(),
            NoopSpec.INSTANCE.digest(),
            1000,
            java.util.Optional.empty(),
            java.util.Optional.empty());
    assertThat(wrongDigest.checked(policy).rejection().orElseThrow().reason())
        .isEqualTo(OfferRejection.Reason.SPEC_DIGEST_MISMATCH);
    JsonValue.JsonObject badSpec =
        new JsonValue.JsonObject(
            Map.of(
                "argv",
                new JsonValue.JsonArray(List.of()),
                "cwd",
                JsonValue.JsonNull.INSTANCE,
                "env",
                JsonValue.JsonObject.EMPTY));
    Offer invalid =
        new Offer(
            1,
            "process",
            "k",
            new RunId("r1"),
            badSpec,
            CanonicalJson.digest(badSpec),
            1000,
            java.util.Optional.empty(),
            java.util.Optional.empty());
    OfferRejection r = invalid.checked(policy).rejection().orElseThrow();
    assertThat(r.reason()).isEqualTo(OfferRejection.Reason.SPEC_INVALID);
    assertThat(r.code()).isEqualTo("out_of_range");
    assertThat(r.pointer()).isEqualTo("/spec/argv");
    Failure failure = r.failure();
    assertThat(failure.code()).isEqualTo("offer_rejected");
    assertThat(failure.category()).isEqualTo(FailureCategory.PERMANENT);
  }

  /**
   * A rejection's message quotes the offending value cut to 80 characters, never between the two
   * halves of a character beyond U+FFFF: the message must stay a valid failure message.
   */
  @Test
  void aRejectionQuotingALongValueCutsItBetweenCharacters() {
    JsonValue.JsonObject spec =
        new JsonValue.JsonObject(
            Map.of(
                "category",
                new JsonValue.JsonString("permanent"),
                "code",
                new JsonValue.JsonString("a".repeat(76) + "\ud83d\ude00" + "b".repeat(10))));
    Offer offer =
        new Offer(
            1,
            "fail",
            "k",
            new RunId("r1"),
            spec,
            CanonicalJson.digest(spec),
            1000,
            java.util.Optional.empty(),
            java.util.Optional.empty());
    OfferRejection r =
        offer.checked(new OfferPolicy(Set.of("fail"), 16384)).rejection().orElseThrow();
    assertThat(r.reason()).isEqualTo(OfferRejection.Reason.SPEC_INVALID);
    Failure failure = r.failure();
    assertThat(failure.message()).contains("'" + "a".repeat(76) + "...'");
  }

  @Test
  void policyFromCapability() throws Exception {
    Capability c = RegisterRequest.parse(Vectors.bytes("requests/register-edge.json")).capability();
    OfferPolicy p = OfferPolicy.of(c);
    assertThat(p.advertisedExecutors()).containsExactly("process");
    assertThat(p.maxSpecBytes()).isEqualTo(16384);
    assertThat(OfferPolicy.CONTRACT.advertises("anything")).isTrue();
  }

  @Test
  void aNextPullHintWithOffersPresentIsIgnoredNotDrift() throws Exception {
    String body =
        "{\"generation\":7,\"nextPullAfterMs\":5,\"offers\":["
            + new String(
                    new PullResponse(
                            7,
                            0,
                            List.of(Offer.of(1, "k", new RunId("r1"), NoopSpec.INSTANCE, 5)),
                            new PullId("01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f"))
                        .toCanonicalBytes(),
                    StandardCharsets.UTF_8)
                .replaceAll("^.*\"offers\":\\[", "");
    // Section 5 and the section 6 clarifications: with offers present the client ignores T.
    PullResponse r = PullResponse.parse(body.getBytes(StandardCharsets.UTF_8));
    assertThat(r.offers()).hasSize(1);
    assertThat(
            DriftCheck.pull(
                r, new PullRequest(7, 1, new PullId("01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f"), 0)))
        .isEmpty();
  }

  @Test
  void anExecutorNameBreakingThePatternIsAnUnadvertisedExecutor() throws Exception {
    String offer =
        "{\"attempt\":1,\"executor\":\"Bad Name\",\"idempotencyKey\":\"k\",\"runId\":\"r1\","
            + "\"spec\":{},\"specDigest\":\""
            + NoopSpec.INSTANCE.digest()
            + "\",\"timeoutMs\":5}";
    Offer o = Offer.parse(offer.getBytes(StandardCharsets.UTF_8));
    assertThat(o.rejection().orElseThrow().reason())
        .isEqualTo(OfferRejection.Reason.UNADVERTISED_EXECUTOR);
    assertThat(o.toCanonicalBytes()).isEqualTo(offer.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void reCheckingAContractParsedAnswerAgainstTheClientsPolicy() throws Exception {
    PullResponse any =
        PullResponse.parse(Vectors.bytes("responses/valid/pull-node-container.json"));
    assertThat(any.rejectedOffers()).isEmpty();
    PullResponse processOnly = any.withPolicy(new OfferPolicy(Set.of("process"), 65536));
    assertThat(processOnly.rejectedOffers())
        .isNotEmpty()
        .allSatisfy(o -> assertThat(o.executor()).isEqualTo("container"));
    assertThat(processOnly.toCanonicalBytes()).isEqualTo(any.toCanonicalBytes());
  }
}
