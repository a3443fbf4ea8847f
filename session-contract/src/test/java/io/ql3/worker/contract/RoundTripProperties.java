package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Serialize-then-parse identity for generated valid values of every wire type. */
class RoundTripProperties {

  @Property(tries = 150)
  void registerRequest(@ForAll("registerRequests") RegisterRequest r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    assertThat(RegisterRequest.parse(b)).isEqualTo(r);
    assertThat(CanonicalJson.canonicalize(b)).isEqualTo(b);
  }

  @Property(tries = 300)
  void heartbeatRequest(@ForAll("heartbeatRequests") HeartbeatRequest r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    assertThat(HeartbeatRequest.parse(b)).isEqualTo(r);
    assertThat(CanonicalJson.canonicalize(b)).isEqualTo(b);
  }

  @Property(tries = 200)
  void transitionRequest(@ForAll("transitionRequests") TransitionRequest r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    assertThat(TransitionRequest.parse(b)).isEqualTo(r);
    assertThat(CanonicalJson.canonicalize(b)).isEqualTo(b);
  }

  @Property(tries = 200)
  void pullRequest(@ForAll("pullRequests") PullRequest r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    assertThat(PullRequest.parse(b, r.maxRuns())).isEqualTo(r);
    assertThat(CanonicalJson.canonicalize(b)).isEqualTo(b);
  }

  @Property(tries = 300)
  void completeRequest(@ForAll("completeRequests") CompleteRequest r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    assertThat(CompleteRequest.parse(b)).isEqualTo(r);
    assertThat(CanonicalJson.canonicalize(b)).isEqualTo(b);
  }

  @Property(tries = 200)
  void registerResponse(@ForAll("registerResponses") RegisterResponse r) throws Exception {
    assertThat(RegisterResponse.parse(r.toCanonicalBytes())).isEqualTo(r);
  }

  @Property(tries = 200)
  void heartbeatResponse(@ForAll("heartbeatResponses") HeartbeatResponse r) throws Exception {
    assertThat(HeartbeatResponse.parse(r.toCanonicalBytes())).isEqualTo(r);
  }

  @Property(tries = 200)
  void transitionResponse(@ForAll("transitionResponses") TransitionResponse r) throws Exception {
    assertThat(TransitionResponse.parse(r.toCanonicalBytes())).isEqualTo(r);
  }

  @Property(tries = 150)
  void pullResponse(@ForAll("pullResponses") PullResponse r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    PullResponse parsed = PullResponse.parse(b);
    assertThat(parsed.rejectedOffers()).isEmpty();
    assertThat(parsed.toCanonicalBytes()).isEqualTo(b);
    assertThat(parsed.generation()).isEqualTo(r.generation());
    assertThat(parsed.pullId()).isEqualTo(r.pullId());
    for (int i = 0; i < r.offers().size(); i++) {
      assertThat(parsed.offers().get(i).executorSpec()).isEqualTo(r.offers().get(i).executorSpec());
      assertThat(parsed.offers().get(i).runId()).isEqualTo(r.offers().get(i).runId());
    }
  }

  @Property(tries = 200)
  void completeResponse(@ForAll("completeResponses") CompleteResponse r) throws Exception {
    assertThat(CompleteResponse.parse(r.toCanonicalBytes())).isEqualTo(r);
  }

  @Property(tries = 200)
  void errorBody(@ForAll("errorBodies") ErrorBody r) throws Exception {
    byte[] b = r.toCanonicalBytes();
    if (b.length <= Operation.ERROR_CAP) {
      assertThat(ErrorBody.parse(b)).isEqualTo(r);
    }
  }

  @Property(tries = 300)
  void stringsSurviveCanonicalEscaping(@ForAll("texts") String s) throws Exception {
    JsonValue v = new JsonValue.JsonString(s);
    byte[] b = CanonicalJson.toBytes(v);
    assertThat(JsonReader.parse(b)).isEqualTo(v);
    assertThat(b.length - 2).isEqualTo(CanonicalJson.escapedLength(s));
  }

  @Provide
  Arbitrary<RegisterRequest> registerRequests() {
    return Gen.registerRequest();
  }

  @Provide
  Arbitrary<HeartbeatRequest> heartbeatRequests() {
    return Gen.heartbeatRequest();
  }

  @Provide
  Arbitrary<TransitionRequest> transitionRequests() {
    return Gen.transitionRequest();
  }

  @Provide
  Arbitrary<PullRequest> pullRequests() {
    return Gen.pullRequest();
  }

  @Provide
  Arbitrary<CompleteRequest> completeRequests() {
    return Gen.completeRequest();
  }

  @Provide
  Arbitrary<RegisterResponse> registerResponses() {
    return Gen.registerResponse();
  }

  @Provide
  Arbitrary<HeartbeatResponse> heartbeatResponses() {
    return Gen.heartbeatResponse();
  }

  @Provide
  Arbitrary<TransitionResponse> transitionResponses() {
    return Gen.transitionResponse();
  }

  @Provide
  Arbitrary<PullResponse> pullResponses() {
    return Gen.pullResponse();
  }

  @Provide
  Arbitrary<CompleteResponse> completeResponses() {
    return Gen.completeResponse();
  }

  @Provide
  Arbitrary<ErrorBody> errorBodies() {
    return Gen.errorBody();
  }

  @Provide
  Arbitrary<String> texts() {
    return Gen.text(200);
  }
}
