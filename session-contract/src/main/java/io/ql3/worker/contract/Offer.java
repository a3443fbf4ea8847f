package io.ql3.worker.contract;

import java.util.Optional;

/**
 * One offered run of a pull answer. The whole-answer rules (types, ranges, identifiers, JSON rules
 * inside the spec) are enforced by the parser; the one-offer rules (advertised executor, spec size,
 * spec digest, spec valid for its executor) give a {@link #rejection()} instead, so the rest of the
 * answer stands.
 *
 * @param spec the spec as received (a JSON object)
 * @param rejection present when a one-offer rule is broken: never execute, complete it failed
 * @param executorSpec the typed spec when the offer is not rejected
 */
public record Offer(
    long attempt,
    String executor,
    String idempotencyKey,
    RunId runId,
    JsonValue.JsonObject spec,
    String specDigest,
    long timeoutMs,
    Optional<OfferRejection> rejection,
    Optional<ExecutorSpec> executorSpec) {
  public static final long MAX_TIMEOUT_MS = 86_400_000L;
  public static final int MAX_IDEMPOTENCY_KEY = 128;
  static final String[] NAMES = {
    "attempt", "executor", "idempotencyKey", "runId", "spec", "specDigest", "timeoutMs"
  };

  public Offer {
    Check.range(attempt, 1, JsonValue.MAX_INTEGER, "/attempt");
    // The executor name is a one-offer rule (an unadvertised executor): see checked().
    Check.scalar(Check.present(executor, "/executor"), "/executor");
    checkIdempotencyKey(Check.present(idempotencyKey, "/idempotencyKey"));
    Check.present(runId, "/runId");
    Check.present(spec, "/spec");
    Check.scalar(Check.present(specDigest, "/specDigest"), "/specDigest");
    Check.range(timeoutMs, 1, MAX_TIMEOUT_MS, "/timeoutMs");
    Check.present(rejection, "/rejection");
    Check.present(executorSpec, "/executorSpec");
  }

  /**
   * The contract's rule for an idempotency key: 1..{@value #MAX_IDEMPOTENCY_KEY} characters
   * U+0020..U+007E.
   */
  private static void checkIdempotencyKey(String s) {
    Check.printableAscii(s, 1, MAX_IDEMPOTENCY_KEY, "/idempotencyKey");
  }

  /**
   * Whether {@code s} is a valid idempotency key (the rule an offer is checked by), for a check
   * outside this record: the runtime checks every run's context again. A loop over the characters,
   * not a regular expression, which the edge agent would interpret (docs/perf/edge.md, "Sixteenth
   * pass").
   */
  public static boolean isIdempotencyKey(String s) {
    try {
      checkIdempotencyKey(s);
      return true;
    } catch (InvalidWireValueException e) {
      return false;
    }
  }

  /** An offer a server builds from a typed spec (digest computed). */
  public static Offer of(
      long attempt, String idempotencyKey, RunId runId, ExecutorSpec spec, long timeoutMs) {
    return new Offer(
        attempt,
        spec.executor(),
        idempotencyKey,
        runId,
        spec.toJson(),
        spec.digest(),
        timeoutMs,
        Optional.empty(),
        Optional.of(spec));
  }

  public boolean isRejected() {
    return rejection.isPresent();
  }

  /**
   * Applies the one-offer rules of {@code policy}: the same offer with its rejection or typed spec
   * set.
   */
  public Offer checked(OfferPolicy policy) {
    ExecutorSpec typed = null;
    OfferRejection r = null;
    if (!Patterns.executorName(executor) || !policy.advertises(executor)) {
      r =
          new OfferRejection(
              OfferRejection.Reason.UNADVERTISED_EXECUTOR,
              null,
              "/executor",
              "executor " + executor + " is not advertised by this worker");
    } else {
      byte[] canonical = CanonicalJson.toBytes(spec);
      if (canonical.length > policy.maxSpecBytes()) {
        r =
            new OfferRejection(
                OfferRejection.Reason.SPEC_TOO_LARGE,
                null,
                "/spec",
                "spec is "
                    + canonical.length
                    + " canonical bytes, maxSpecBytes is "
                    + policy.maxSpecBytes());
      } else if (!Digests.sha256(canonical).equals(specDigest)) {
        r =
            new OfferRejection(
                OfferRejection.Reason.SPEC_DIGEST_MISMATCH,
                null,
                "/specDigest",
                "specDigest is not the digest of the canonical spec");
      } else {
        try {
          typed = ExecutorSpec.parse(executor, spec);
        } catch (ContractViolation v) {
          r =
              new OfferRejection(
                  OfferRejection.Reason.SPEC_INVALID,
                  v.reason(),
                  "/spec" + v.pointer(),
                  "spec invalid for executor " + executor + ": " + v.getMessage());
        }
      }
    }
    return new Offer(
        attempt,
        executor,
        idempotencyKey,
        runId,
        spec,
        specDigest,
        timeoutMs,
        Optional.ofNullable(r),
        Optional.ofNullable(typed));
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"attempt\":")
        .number(attempt)
        .ascii(",\"executor\":")
        .string(executor)
        .ascii(",\"idempotencyKey\":")
        .string(idempotencyKey)
        .ascii(",\"runId\":")
        .string(runId.value())
        .ascii(",\"spec\":")
        .value(spec)
        .ascii(",\"specDigest\":")
        .string(specDigest)
        .ascii(",\"timeoutMs\":")
        .number(timeoutMs)
        .raw('}');
  }

  /** Reads an offer; whole-answer rules throw, one-offer rules are left to {@link #checked}. */
  static Offer read(Obj o) throws ContractViolation {
    long attempt = o.integer("attempt");
    String executor = o.string("executor");
    String key = o.string("idempotencyKey");
    RunId runId;
    try {
      runId = RunId.of(o.string("runId"));
    } catch (ContractViolation e) {
      throw e.pointer().isEmpty() ? e.under(o.at("runId")) : e;
    }
    JsonValue.JsonObject spec = o.rawObject("spec");
    String digest = o.string("specDigest");
    long timeout = o.integer("timeoutMs");
    try {
      return new Offer(
          attempt, executor, key, runId, spec, digest, timeout, Optional.empty(), Optional.empty());
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  /**
   * Canonical bytes of the offer as a server sends it (the rejection and typed spec are local
   * facts).
   */
  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(256);
    write(w);
    return w.toByteArray();
  }

  /** Parses one offer object and applies {@link OfferPolicy#CONTRACT}. */
  public static Offer parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES)).checked(OfferPolicy.CONTRACT);
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
