package io.ql3.worker.contract;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators of valid contract values. */
final class Gen {
  private Gen() {}

  static Arbitrary<Long> integer() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(0, JsonValue.MAX_INTEGER),
        Arbitraries.of(0L, 1L, 9L, 10L, JsonValue.MAX_INTEGER));
  }

  /** Unicode scalar values, biased to escapes, controls and non-BMP characters. */
  static Arbitrary<String> text(int maxCodePoints) {
    Arbitrary<Integer> cp =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(0x20, 0x7E)),
            net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 0x1F)),
            net.jqwik.api.Tuple.of(
                1, Arbitraries.of((int) '"', (int) '\\', 0x7F, 0x2028, 0xFEFF, 0xFFFD)),
            net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0x80, 0xD7FF)),
            net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0xE000, 0xFFFF)),
            net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF)));
    return cp.list()
        .ofMaxSize(maxCodePoints)
        .map(
            l -> {
              StringBuilder sb = new StringBuilder();
              l.forEach(sb::appendCodePoint);
              return sb.toString();
            });
  }

  private static Arbitrary<String> chars(String first, String rest, int maxRest) {
    return Combinators.combine(
            Arbitraries.strings().withChars(first).ofLength(1),
            Arbitraries.strings().withChars(rest).ofMaxLength(maxRest))
        .as(String::concat);
  }

  static final String LOWER = "abcdefghijklmnopqrstuvwxyz";
  static final String DIGITS = "0123456789";
  static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  static Arbitrary<RunId> runId() {
    return chars(LOWER + UPPER + DIGITS, LOWER + UPPER + DIGITS + "._-", 40).map(RunId::new);
  }

  static Arbitrary<String> uuid7() {
    return Combinators.combine(Arbitraries.longs().between(0, (1L << 48) - 1), Arbitraries.longs())
        .as((ms, seed) -> new Uuid7Generator(() -> ms, new SplittableRandom(seed)).next());
  }

  static Arbitrary<SessionId> sessionId() {
    return uuid7().map(SessionId::new);
  }

  static Arbitrary<PullId> pullId() {
    return uuid7().map(PullId::new);
  }

  static Arbitrary<WorkerId> workerId() {
    return Combinators.combine(
            Arbitraries.strings().withChars(LOWER + DIGITS).ofLength(1),
            Arbitraries.strings().withChars(LOWER + DIGITS + "-").ofMaxLength(30),
            Arbitraries.strings().withChars(LOWER + DIGITS).ofLength(1))
        .as((a, b, c) -> a + b + c)
        .map(WorkerId::new);
  }

  static Arbitrary<String> code() {
    return chars(LOWER, LOWER + DIGITS + "_", 30);
  }

  static Arbitrary<Capacity> capacity() {
    return Arbitraries.integers()
        .between(1, 1024)
        .flatMap(m -> Arbitraries.integers().between(0, m).map(a -> new Capacity(a, m)));
  }

  static Arbitrary<Capability> capability() {
    Arbitrary<Map<String, String>> labels =
        Arbitraries.maps(chars(LOWER + DIGITS, LOWER + DIGITS + "._/-", 20), text(40)).ofMaxSize(8);
    Arbitrary<List<String>> executors =
        chars(LOWER, LOWER + DIGITS + "-", 10)
            .set()
            .ofMinSize(1)
            .ofMaxSize(5)
            .map(s -> List.copyOf(new java.util.TreeSet<>(s)));
    Arbitrary<String> revision = Arbitraries.strings().withChars("0123456789abcdef").ofLength(40);
    return Combinators.combine(
            labels,
            executors,
            revision,
            Arbitraries.of(Profile.class),
            Arbitraries.integers().between(1, 1024),
            Arbitraries.integers().between(1, 65536),
            Arbitraries.integers().between(1, 64),
            Arbitraries.of("amd64", "arm64", "riscv64"))
        .as(
            (l, ex, rev, profile, m, spec, page, arch) -> {
              CapabilityBuilder b =
                  new CapabilityBuilder()
                      .agent("1.4.2-rc.1+build.7", rev)
                      .architecture(arch)
                      .runtime("java", "17.0.13+11")
                      .limits(m, spec, page)
                      .profile(profile)
                      .labels(l);
              ex.forEach(e -> b.executor(e, "1"));
              try {
                return b.build();
              } catch (ContractViolation v) {
                throw new AssertionError(v);
              }
            });
  }

  static Arbitrary<RegisterRequest> registerRequest() {
    return capability()
        .flatMap(
            c ->
                Arbitraries.integers()
                    .between(0, c.limits().maxConcurrentRuns())
                    .map(a -> RegisterRequest.of(c, a)));
  }

  static Arbitrary<HeartbeatRequest> heartbeatRequest() {
    return Combinators.combine(
            capacity(),
            integer(),
            integer(),
            integer(),
            Arbitraries.of(SessionStatus.ACTIVE, SessionStatus.DRAINING),
            Arbitraries.longs().between(1, JsonValue.MAX_INTEGER))
        .as(
            (c, g, a, p, s, v) ->
                new HeartbeatRequest(
                    s == SessionStatus.DRAINING ? c.withoutSlots() : c,
                    g,
                    new RunCounts(a, p),
                    s,
                    v));
  }

  static Arbitrary<TransitionRequest> transitionRequest() {
    Arbitrary<SessionStatus[]> pair =
        Arbitraries.of(
            new SessionStatus[] {SessionStatus.ACTIVE, SessionStatus.DRAINING},
            new SessionStatus[] {SessionStatus.ACTIVE, SessionStatus.OFFLINE},
            new SessionStatus[] {SessionStatus.DRAINING, SessionStatus.OFFLINE});
    return Combinators.combine(
            capacity(), pair, integer(), Arbitraries.longs().between(1, JsonValue.MAX_INTEGER))
        .as((c, p, g, v) -> new TransitionRequest(c.withoutSlots(), p[0], g, p[1], v));
  }

  static Arbitrary<PullRequest> pullRequest() {
    return Combinators.combine(
            integer(),
            Arbitraries.integers().between(1, 64),
            pullId(),
            Arbitraries.integers().between(0, 60000))
        .as(PullRequest::new);
  }

  static Arbitrary<Failure> failure() {
    return Combinators.combine(Arbitraries.of(FailureCategory.class), code(), text(300))
        .as(Failure::new);
  }

  static Arbitrary<RunResult> runResult() {
    return Combinators.combine(
            integer(),
            Arbitraries.integers().between(0, 255).injectNull(0.3),
            integer(),
            text(2000).map(OutputTail::fit))
        .as(RunResult::new);
  }

  static Arbitrary<CompleteRequest> completeRequest() {
    return Combinators.combine(
            Arbitraries.longs().between(1, JsonValue.MAX_INTEGER),
            failure(),
            integer(),
            Arbitraries.of(Outcome.class),
            runResult())
        .as((a, f, g, o, r) -> new CompleteRequest(a, o == Outcome.SUCCEEDED ? null : f, g, o, r));
  }

  static Arbitrary<RegisterResponse> registerResponse() {
    Arbitrary<Replaced> replaced =
        Combinators.combine(integer(), sessionId(), Arbitraries.of(ReplacedStatus.class))
            .as(Replaced::new)
            .injectNull(0.4);
    return Combinators.combine(
            integer(),
            integer(),
            integer(),
            replaced,
            Arbitraries.of(SessionStatus.class),
            integer())
        .as(RegisterResponse::new);
  }

  static Arbitrary<HeartbeatResponse> heartbeatResponse() {
    return Combinators.combine(
            runId().list().ofMaxSize(32),
            integer(),
            integer(),
            integer(),
            Arbitraries.of(SessionStatus.class),
            integer(),
            Arbitraries.of(true, false))
        .as(HeartbeatResponse::new);
  }

  static Arbitrary<TransitionResponse> transitionResponse() {
    return Combinators.combine(integer(), integer(), Arbitraries.of(SessionStatus.class), integer())
        .as(TransitionResponse::new);
  }

  static Arbitrary<ExecutorSpec> spec() {
    Arbitrary<ExecutorSpec> process =
        Combinators.combine(
                text(30)
                    .filter(s -> !s.isEmpty() && s.indexOf('\0') < 0)
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(6),
                Arbitraries.of("jobs/0117", "a/b/c", ".", "x..y/z").injectNull(0.5),
                Arbitraries.maps(
                        chars(LOWER + UPPER + "_", LOWER + UPPER + DIGITS + "_", 10),
                        text(20).filter(s -> s.indexOf('\0') < 0))
                    .ofMaxSize(5))
            .as(ProcessSpec::new);
    return Arbitraries.oneOf(
        process,
        Arbitraries.just(NoopSpec.INSTANCE),
        Arbitraries.longs().between(0, SleepSpec.MAX_MS).map(SleepSpec::new),
        Combinators.combine(Arbitraries.of(FailureCategory.class), code()).as(FailSpec::new));
  }

  static Arbitrary<Offer> offer() {
    return Combinators.combine(
            Arbitraries.longs().between(1, JsonValue.MAX_INTEGER),
            Arbitraries.strings().withCharRange(' ', '~').ofMinLength(1).ofMaxLength(128),
            runId(),
            spec(),
            Arbitraries.longs().between(1, Offer.MAX_TIMEOUT_MS))
        .as(Offer::of);
  }

  static Arbitrary<PullResponse> pullResponse() {
    return Combinators.combine(
            integer(),
            Arbitraries.longs().between(0, 300000),
            offer().list().ofMaxSize(4),
            pullId())
        .as((g, t, offers, id) -> new PullResponse(g, offers.isEmpty() ? t : 0, offers, id));
  }

  static Arbitrary<CompleteResponse> completeResponse() {
    return Combinators.combine(
            Arbitraries.longs().between(1, JsonValue.MAX_INTEGER),
            Arbitraries.of(Disposition.class),
            runId())
        .as(CompleteResponse::new);
  }

  static Arbitrary<ErrorBody> errorBody() {
    return Combinators.combine(Arbitraries.of(ErrorCode.class), text(200)).as(ErrorBody::new);
  }
}
