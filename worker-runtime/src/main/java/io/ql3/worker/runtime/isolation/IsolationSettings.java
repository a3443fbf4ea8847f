package io.ql3.worker.runtime.isolation;

import java.util.Objects;

/**
 * The isolation part of the configuration ({@code [execution]}: {@code isolation},
 * {@code run-user}, {@code run-group}, {@code memory-max}, {@code pids-max},
 * {@code cpu-weight}).
 */
public record IsolationSettings(IsolationMode mode, String runUser, String runGroup, RunLimits limits) {

  public static final String DEFAULT_RUN_USER = "ql3-run";

  public IsolationSettings {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(runUser, "runUser");
    Objects.requireNonNull(runGroup, "runGroup");
    Objects.requireNonNull(limits, "limits");
  }
}
