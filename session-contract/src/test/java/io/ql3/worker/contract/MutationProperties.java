package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random byte mutations, truncations and splices of valid bodies: every parser either accepts or
 * throws {@link ContractViolation}; never another throwable. Nesting is bounded, so nothing hangs
 * or overflows the stack.
 */
class MutationProperties {
  private static final List<byte[]> SEEDS = seeds();

  private static List<byte[]> seeds() {
    List<byte[]> out = new ArrayList<>();
    for (String dir : List.of("requests", "responses/valid")) {
      for (Vectors.Entry e : Vectors.index(dir + "/index.json")) {
        byte[] b = Vectors.bytes(dir + "/" + e.str("file"));
        if (b.length <= 20000) { // keep mutation cheap; big bodies add nothing new
          out.add(b);
        }
      }
    }
    return out;
  }

  /** Feeds {@code body} to every parser; any throwable but ContractViolation fails. */
  static void feedEverything(byte[] body) {
    List<ThrowingRunnable> parsers =
        List.of(
            () -> JsonReader.parse(body),
            () -> CanonicalJson.canonicalize(body),
            () -> RegisterRequest.parse(body),
            () -> HeartbeatRequest.parse(body),
            () -> TransitionRequest.parse(body),
            () -> PullRequest.parse(body),
            () -> PullRequest.parse(body, 3),
            () -> CompleteRequest.parse(body),
            () -> RegisterResponse.parse(body),
            () -> HeartbeatResponse.parse(body),
            () -> TransitionResponse.parse(body),
            () -> PullResponse.parse(body),
            () -> PullResponse.parse(body, new OfferPolicy(Set.of("process", "sleep"), 64)),
            () -> CompleteResponse.parse(body),
            () -> ErrorBody.parse(body),
            () -> ErrorBody.parse(409, Operation.COMPLETE, body),
            () -> Capability.parse(body),
            () -> Capacity.parse(body),
            () -> Failure.parse(body),
            () -> RunResult.parse(body),
            () -> Replaced.parse(body),
            () -> RunCounts.parse(body),
            () -> ExecutorSpec.parse("process", body),
            () -> ExecutorSpec.parse("fail", body),
            () -> ExecutorSpec.parse("sleep", body),
            () -> ExecutorSpec.parse("noop", body),
            () -> ExecutorSpec.parse("container", body),
            () -> ExecutorSpec.parse("Bad Name", body));
    for (ThrowingRunnable p : parsers) {
      try {
        p.run();
      } catch (ContractViolation expected) {
        if (expected.reason() == null || expected.pointer() == null) {
          fail("violation without reason/pointer");
        }
      } catch (Throwable t) {
        throw new AssertionError(
            "non-contract throwable for input "
                + Arrays.toString(Arrays.copyOf(body, Math.min(body.length, 200))),
            t);
      }
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Property(tries = 400)
  void mutatedBodiesParseOrViolate(@ForAll("mutated") byte[] body) {
    feedEverything(body);
  }

  @Property(tries = 100)
  void randomBytesParseOrViolate(@ForAll("randomBytes") byte[] body) {
    feedEverything(body);
  }

  /**
   * Well-formed JSON made of contract member names and random values: exercises every binder path.
   */
  @Property(tries = 300)
  void schemaShapedValuesParseOrViolate(@ForAll("shaped") JsonValue v) {
    feedEverything(CanonicalJson.toBytes(v));
  }

  private static final String[] NAMES = {
    "agent",
    "architecture",
    "argv",
    "attempt",
    "availableSlots",
    "cancelRuns",
    "capability",
    "capabilityDigest",
    "capacity",
    "category",
    "code",
    "cwd",
    "disposition",
    "durationMs",
    "env",
    "executor",
    "executors",
    "exitCode",
    "failure",
    "from",
    "generation",
    "heartbeatIntervalMs",
    "idempotencyKey",
    "labels",
    "leaseTtlMs",
    "limits",
    "maxConcurrentRuns",
    "maxRuns",
    "maxSpecBytes",
    "message",
    "ms",
    "name",
    "nextPullAfterMs",
    "offers",
    "os",
    "outcome",
    "outputBytes",
    "outputTail",
    "pendingCompletions",
    "profile",
    "pullId",
    "pullPage",
    "replaced",
    "result",
    "revision",
    "runId",
    "runs",
    "runtime",
    "schema",
    "sessionId",
    "spec",
    "specDigest",
    "status",
    "timeoutMs",
    "to",
    "version",
    "waitMs",
    "workAvailable"
  };

  @Provide
  Arbitrary<JsonValue> shaped() {
    return shaped(3);
  }

  private static Arbitrary<JsonValue> shaped(int depth) {
    Arbitrary<JsonValue> leaf =
        Arbitraries.oneOf(
            Arbitraries.of(
                    0L,
                    1L,
                    2L,
                    3L,
                    4L,
                    255L,
                    256L,
                    1024L,
                    1025L,
                    65536L,
                    86400001L,
                    JsonValue.MAX_INTEGER)
                .map(JsonValue.JsonNumber::new),
            Arbitraries.of(
                    "active",
                    "draining",
                    "offline",
                    "expired",
                    "edge",
                    "node",
                    "succeeded",
                    "failed",
                    "transient",
                    "permanent",
                    "accepted",
                    "process",
                    "noop",
                    "sleep",
                    "fail",
                    "",
                    "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d",
                    "run-1",
                    "sha256:00",
                    "..",
                    "/abs",
                    "qinglong/worker-session-heartbeat@v1",
                    "qinglong/worker-execution-pull@v1",
                    "qinglong/worker-session-register@v1",
                    "qinglong/worker-execution-complete@v1",
                    "qinglong/worker-session-transition@v1",
                    "qinglong/worker-ingress-error@v1",
                    "session_fenced",
                    "run_not_leased",
                    "linux",
                    "java")
                .map(JsonValue.JsonString::new),
            Arbitraries.of(
                JsonValue.JsonBoolean.TRUE,
                JsonValue.JsonBoolean.FALSE,
                JsonValue.JsonNull.INSTANCE));
    if (depth == 0) {
      return leaf;
    }
    Arbitrary<JsonValue> object =
        Arbitraries.maps(Arbitraries.of(NAMES), shaped(depth - 1))
            .ofMaxSize(9)
            .map(JsonValue.JsonObject::new);
    Arbitrary<JsonValue> array =
        shaped(depth - 1).list().ofMaxSize(3).map(JsonValue.JsonArray::new);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(2, leaf),
        net.jqwik.api.Tuple.of(4, object),
        net.jqwik.api.Tuple.of(1, array));
  }

  @Provide
  Arbitrary<byte[]> randomBytes() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
        Arbitraries.strings()
            .withChars("{}[]\":,0123456789-.eE\\u tfnrlsa ")
            .ofMaxLength(300)
            .map(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  @Provide
  Arbitrary<byte[]> mutated() {
    Arbitrary<byte[]> seed = Arbitraries.of(SEEDS);
    Arbitrary<byte[]> flips =
        Combinators.combine(
                seed,
                Arbitraries.integers()
                    .between(0, Integer.MAX_VALUE)
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(8),
                Arbitraries.bytes().list().ofMinSize(8).ofMaxSize(8))
            .as(
                (b, positions, values) -> {
                  byte[] c = b.clone();
                  for (int i = 0; i < positions.size(); i++) {
                    c[positions.get(i) % c.length] = values.get(i);
                  }
                  return c;
                });
    Arbitrary<byte[]> structural =
        Combinators.combine(
                seed,
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.of(
                    (byte) '{',
                    (byte) '}',
                    (byte) '[',
                    (byte) ']',
                    (byte) '"',
                    (byte) ',',
                    (byte) ':',
                    (byte) '\\',
                    (byte) '-',
                    (byte) '.',
                    (byte) 'e',
                    (byte) 0,
                    (byte) 0xC0,
                    (byte) 0xED,
                    (byte) 0xEF,
                    (byte) 0xF4,
                    (byte) 0x80))
            .as(
                (b, pos, v) -> {
                  int p = pos % (b.length + 1);
                  byte[] c = new byte[b.length + 1];
                  System.arraycopy(b, 0, c, 0, p);
                  c[p] = v;
                  System.arraycopy(b, p, c, p + 1, b.length - p);
                  return c;
                });
    Arbitrary<byte[]> truncated =
        Combinators.combine(seed, Arbitraries.integers().between(0, Integer.MAX_VALUE))
            .as((b, n) -> Arrays.copyOf(b, n % (b.length + 1)));
    Arbitrary<byte[]> deleted =
        Combinators.combine(
                seed,
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers().between(1, 40))
            .as(
                (b, pos, len) -> {
                  int p = pos % b.length;
                  int l = Math.min(len, b.length - p);
                  byte[] c = new byte[b.length - l];
                  System.arraycopy(b, 0, c, 0, p);
                  System.arraycopy(b, p + l, c, p, b.length - p - l);
                  return c;
                });
    Arbitrary<byte[]> spliced =
        Combinators.combine(
                seed,
                seed,
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers().between(0, Integer.MAX_VALUE))
            .as(
                (a, b, i, j) -> {
                  int p = i % (a.length + 1);
                  int q = j % (b.length + 1);
                  byte[] c = new byte[p + b.length - q];
                  System.arraycopy(a, 0, c, 0, p);
                  System.arraycopy(b, q, c, p, b.length - q);
                  return c;
                });
    return Arbitraries.oneOf(flips, structural, truncated, deleted, spliced);
  }
}
