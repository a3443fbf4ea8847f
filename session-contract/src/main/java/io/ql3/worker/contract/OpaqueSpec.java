package io.ql3.worker.contract;

/**
 * The spec of an executor this module does not define (e.g. {@code container}): any JSON object.
 */
public record OpaqueSpec(String executor, JsonValue.JsonObject spec) implements ExecutorSpec {
  public OpaqueSpec {
    Check.identifier(
        Patterns.executorName(Check.present(executor, "/executor")),
        executor,
        "executor name",
        "/executor");
    Check.present(spec, "");
  }

  @Override
  public JsonValue.JsonObject toJson() {
    return spec;
  }
}
