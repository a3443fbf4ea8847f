package io.ql3.worker.contract;

/**
 * The typed spec of an offer for its executor. Built-in executors: {@code process} ({@link
 * ProcessSpec}), {@code noop} ({@link NoopSpec}), {@code sleep} ({@link SleepSpec}), {@code fail}
 * ({@link FailSpec}); any other executor's spec is kept as an {@link OpaqueSpec}.
 */
public sealed interface ExecutorSpec
    permits ProcessSpec, NoopSpec, SleepSpec, FailSpec, OpaqueSpec {

  /** The executor this spec is for. */
  String executor();

  /** The spec as a generic JSON object. */
  JsonValue.JsonObject toJson();

  /** Canonical bytes of the spec (what {@code specDigest} is computed over). */
  default byte[] toCanonicalBytes() {
    return CanonicalJson.toBytes(toJson());
  }

  /** {@code sha256:} digest of the canonical spec. */
  default String digest() {
    return Digests.sha256(toCanonicalBytes());
  }

  /**
   * Validates {@code spec} for {@code executor}. Violations carry pointers relative to the spec.
   */
  static ExecutorSpec parse(String executor, JsonValue spec) throws ContractViolation {
    try {
      return SpecReader.read(executor, spec);
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }

  /** Parses canonical-or-not spec JSON bytes for {@code executor}. */
  static ExecutorSpec parse(String executor, byte[] specJson) throws ContractViolation {
    return parse(executor, JsonReader.parse(specJson));
  }
}
