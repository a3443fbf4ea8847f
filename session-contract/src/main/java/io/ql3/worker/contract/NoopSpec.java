package io.ql3.worker.contract;

import java.util.Map;

/** {@code noop} executor: spec {@code {}}; completes at once, succeeded. */
public enum NoopSpec implements ExecutorSpec {
  INSTANCE;

  public static final String EXECUTOR = "noop";

  @Override
  public String executor() {
    return EXECUTOR;
  }

  @Override
  public JsonValue.JsonObject toJson() {
    return new JsonValue.JsonObject(Map.of());
  }
}
