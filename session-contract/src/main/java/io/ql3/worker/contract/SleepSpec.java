package io.ql3.worker.contract;

import java.util.Map;

/** {@code sleep} executor: spec {@code {"ms":N}}, N in 0..86400000. */
public record SleepSpec(long ms) implements ExecutorSpec {
  public static final String EXECUTOR = "sleep";
  public static final long MAX_MS = 86_400_000L;

  public SleepSpec {
    Check.range(ms, 0, MAX_MS, "/ms");
  }

  @Override
  public String executor() {
    return EXECUTOR;
  }

  @Override
  public JsonValue.JsonObject toJson() {
    return new JsonValue.JsonObject(Map.of("ms", new JsonValue.JsonNumber(ms)));
  }
}
