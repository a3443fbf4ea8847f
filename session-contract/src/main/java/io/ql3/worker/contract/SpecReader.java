package io.ql3.worker.contract;

/** Reads the built-in executors' specs. */
final class SpecReader {
  private SpecReader() {}

  static ExecutorSpec read(String executor, JsonValue spec) throws ContractViolation {
    Obj o;
    switch (executor) {
      case ProcessSpec.EXECUTOR:
        return ProcessSpec.read(Obj.of(spec, "", ProcessSpec.NAMES));
      case NoopSpec.EXECUTOR:
        Obj.of(spec, "");
        return NoopSpec.INSTANCE;
      case SleepSpec.EXECUTOR:
        o = Obj.of(spec, "", "ms");
        return new SleepSpec(o.integer("ms", 0, SleepSpec.MAX_MS));
      case FailSpec.EXECUTOR:
        o = Obj.of(spec, "", "category", "code");
        FailureCategory category = o.enumValue("category", FailureCategory.class);
        String code = o.string("code");
        if (!Patterns.failureCode(code)) {
          throw new ContractViolation(
              ViolationReason.BAD_IDENTIFIER,
              "/code",
              "not a valid failure code: " + Check.quote(code));
        }
        return new FailSpec(category, code);
      default:
        if (spec instanceof JsonValue.JsonObject obj) {
          return new OpaqueSpec(executor, obj);
        }
        Obj.of(spec, ""); // reports the type
        throw new AssertionError("unreachable");
    }
  }
}
