package io.ql3.worker.contract;

import java.util.Map;

/**
 * {@code fail} executor: spec {@code {"category":"transient"|"permanent","code":"…"}}; fails with
 * that failure.
 */
public record FailSpec(FailureCategory category, String code) implements ExecutorSpec {
  public static final String EXECUTOR = "fail";

  public FailSpec {
    Check.present(category, "/category");
    Check.identifier(
        Patterns.failureCode(Check.present(code, "/code")), code, "failure code", "/code");
  }

  @Override
  public String executor() {
    return EXECUTOR;
  }

  @Override
  public JsonValue.JsonObject toJson() {
    return new JsonValue.JsonObject(
        Map.of(
            "category",
            new JsonValue.JsonString(category.wire()),
            "code",
            new JsonValue.JsonString(code)));
  }
}
