package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every file of the ql3w v1 conformance vectors (copied byte-exact into test resources), driven by
 * the index files: one dynamic test per vector.
 */
class VectorConformanceTest {

  // ---- canonical ------------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> canonicalCases() {
    return Vectors.index("canonical/cases.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("name"),
                    () -> {
                      byte[] canonical = e.utf8("canonical");
                      byte[] out = CanonicalJson.canonicalize(e.utf8("input"));
                      assertThat(out).isEqualTo(canonical);
                      assertThat(Digests.sha256(out)).isEqualTo(e.str("sha256"));
                      assertThat(CanonicalJson.canonicalize(canonical)).isEqualTo(canonical);
                    }));
  }

  @TestFactory
  Stream<DynamicTest> canonicalRejects() {
    return Vectors.index("canonical/reject.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("name"),
                    () -> {
                      ContractViolation v =
                          catchThrowableOfType(
                              ContractViolation.class,
                              () -> CanonicalJson.canonicalize(e.utf8("input")));
                      assertThat(v).as("refused").isNotNull();
                      assertThat(v.reason().code()).isEqualTo(e.str("reason"));
                    }));
  }

  // ---- valid requests ---------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> validRequests() {
    return Vectors.index("requests/index.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("file"),
                    () -> {
                      byte[] body = Vectors.bytes("requests/" + e.str("file"));
                      assertThat((long) body.length).isEqualTo(e.num("bytes"));
                      assertThat(Digests.sha256(body)).isEqualTo(e.str("sha256"));
                      Operation op = Operation.fromWireName(e.str("operation"));
                      OperationPath parsedPath = OperationPath.parse(e.str("path"));
                      assertThat(parsedPath.operation()).isEqualTo(op);
                      // Client side: the same logical request built through the public API, byte
                      // for byte.
                      OperationPath built =
                          op == Operation.COMPLETE
                              ? OperationPath.complete(
                                  new WorkerId(parsedPath.workerId().value()),
                                  new SessionId(parsedPath.sessionId().value()),
                                  new RunId(parsedPath.runId().orElseThrow().value()))
                              : OperationPath.of(
                                  op,
                                  new WorkerId(parsedPath.workerId().value()),
                                  new SessionId(parsedPath.sessionId().value()));
                      assertThat(built.path()).isEqualTo(e.str("path"));
                      byte[] rebuilt = RequestRebuilder.rebuild(op, body);
                      assertThat(new String(rebuilt, java.nio.charset.StandardCharsets.UTF_8))
                          .isEqualTo(new String(body, java.nio.charset.StandardCharsets.UTF_8));
                      assertThat(rebuilt).isEqualTo(body);
                      if (op == Operation.REGISTER) {
                        RegisterRequest r = RegisterRequest.parse(body);
                        assertThat(r.capability().digest()).isEqualTo(e.str("capabilityDigest"));
                        assertThat(r.capabilityDigest()).isEqualTo(e.str("capabilityDigest"));
                      }
                    }));
  }

  // ---- invalid requests -------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> invalidRequests() {
    return Vectors.index("requests/invalid/index.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("file") + " -> " + e.str("reason"),
                    () -> {
                      byte[] body = Vectors.bytes("requests/invalid/" + e.str("file"));
                      Operation op = Operation.fromWireName(e.str("operation"));
                      Vectors.Entry ctx = e.obj("context");
                      Integer pullPage =
                          ctx == null || ctx.num("pullPage") == null
                              ? null
                              : ctx.num("pullPage").intValue();
                      ContractViolation v =
                          catchThrowableOfType(
                              ContractViolation.class,
                              () -> {
                                OperationPath p = OperationPath.parse(e.str("path"));
                                assertThat(p.operation()).isEqualTo(op);
                                ServerSide.parseRequest(op, body, pullPage);
                              });
                      assertThat(v).as("refused").isNotNull();
                      assertThat(v.reason().code()).as(v.getMessage()).isEqualTo(e.str("reason"));
                    }));
  }

  // ---- valid responses --------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> validResponses() {
    return Vectors.index("responses/valid/index.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("file"),
                    () -> {
                      byte[] body = Vectors.bytes("responses/valid/" + e.str("file"));
                      Operation op = Operation.fromWireName(e.str("operation"));
                      ClientSide.Verdict verdict = ClientSide.judge(op, e.obj("context"), body);
                      assertThat(verdict.violation()).as("violation").isNull();
                      assertThat(verdict.drift()).as("drift").isEmpty();
                      if (verdict.pull() != null) {
                        assertThat(verdict.pull().rejectedOffers()).as("rejected offers").isEmpty();
                      }
                    }));
  }

  // ---- invalid responses ------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> invalidResponses() {
    return Vectors.index("responses/invalid/index.json").stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.str("file") + " -> " + e.str("reason") + " (" + e.str("scope") + ")",
                    () -> {
                      byte[] body = Vectors.bytes("responses/invalid/" + e.str("file"));
                      Operation op = Operation.fromWireName(e.str("operation"));
                      ClientSide.Verdict verdict = ClientSide.judge(op, e.obj("context"), body);
                      String reason = e.str("reason");
                      if (e.str("scope").equals("response")) {
                        assertThat(e.str("runId")).isNull();
                        if (verdict.violation() != null) {
                          assertThat(verdict.violation().reason().code())
                              .as(verdict.violation().getMessage())
                              .isEqualTo(reason);
                        } else {
                          assertThat(verdict.drift()).as("refused as drift").isPresent();
                          assertThat(verdict.drift().get().reason().code())
                              .as(verdict.drift().get().detail())
                              .isEqualTo(reason);
                        }
                      } else {
                        assertThat(e.str("scope")).isEqualTo("offer");
                        assertThat(verdict.violation()).as("answer accepted").isNull();
                        assertThat(verdict.drift()).as("no drift").isEmpty();
                        PullResponse pull = verdict.pull();
                        List<Offer> rejected = pull.rejectedOffers();
                        assertThat(rejected).hasSize(1);
                        Offer bad = rejected.get(0);
                        assertThat(bad.runId().value()).isEqualTo(e.str("runId"));
                        assertThat(bad.rejection().orElseThrow().code())
                            .as(bad.rejection().get().detail())
                            .isEqualTo(reason);
                        assertThat(bad.executorSpec()).isEmpty();
                        for (Offer ok : pull.acceptedOffers()) {
                          assertThat(ok.executorSpec()).isPresent();
                        }
                        assertThat(pull.acceptedOffers()).hasSize(pull.offers().size() - 1);
                        // The client completes it failed / permanent / offer_rejected with nothing
                        // run.
                        CompleteRequest c = CompleteRequest.offerRejected(pull.generation(), bad);
                        assertThat(c.outcome()).isEqualTo(Outcome.FAILED);
                        assertThat(c.failure().category()).isEqualTo(FailureCategory.PERMANENT);
                        assertThat(c.failure().code()).isEqualTo("offer_rejected");
                        assertThat(c.result()).isEqualTo(new RunResult(0, null, 0, ""));
                        assertThat(CompleteRequest.parse(c.toCanonicalBytes())).isEqualTo(c);
                      }
                    }));
  }

  /**
   * README: requests/complete-failed-offer-rejected.json is the completion for
   * pull-mixed-unadvertised-executor.json.
   */
  @Test
  void offerRejectedCompletionMatchesTheReferenceBytes() throws Exception {
    Vectors.Entry e =
        Vectors.index("responses/invalid/index.json").stream()
            .filter(x -> x.str("file").equals("pull-mixed-unadvertised-executor.json"))
            .findFirst()
            .orElseThrow();
    ClientSide.Verdict verdict =
        ClientSide.judge(
            Operation.PULL,
            e.obj("context"),
            Vectors.bytes("responses/invalid/pull-mixed-unadvertised-executor.json"));
    Offer bad = verdict.pull().rejectedOffers().get(0);
    byte[] expected = Vectors.bytes("requests/complete-failed-offer-rejected.json");
    assertThat(
            new String(
                CompleteRequest.offerRejected(7, bad).toCanonicalBytes(),
                java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(new String(expected, java.nio.charset.StandardCharsets.UTF_8));
  }

  /** Every vector file is named by an index (nothing is silently skipped). */
  @Test
  void everyVectorFileIsIndexed() throws Exception {
    List<String> indexed = new ArrayList<>();
    for (String dir :
        List.of("requests", "requests/invalid", "responses/valid", "responses/invalid")) {
      for (Vectors.Entry e : Vectors.index(dir + "/index.json")) {
        indexed.add(dir + "/" + e.str("file"));
      }
    }
    TreeSet<String> onDisk = new TreeSet<>();
    java.nio.file.Path root = java.nio.file.Path.of(getClass().getResource("/vectors").toURI());
    try (Stream<java.nio.file.Path> s = java.nio.file.Files.walk(root)) {
      s.filter(java.nio.file.Files::isRegularFile)
          .map(p -> root.relativize(p).toString())
          .filter(p -> p.startsWith("re") && !p.endsWith("index.json"))
          .forEach(onDisk::add);
    }
    assertThat(new TreeSet<>(indexed)).isEqualTo(onDisk);
    assertThat(indexed).hasSize(17 + 61 + 43 + 135);
  }
}
