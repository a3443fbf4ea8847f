package io.ql3.worker.runtime.isolation;

import java.util.Objects;

/**
 * The isolation part of the configuration ({@code [execution]}: {@code isolation}, {@code
 * run-uid-base}, {@code memory-max}, {@code pids-max}, {@code cpu-weight}); the number of run
 * accounts is {@code execution.slots} (see {@link RunAccounts}).
 */
public record IsolationSettings(
    IsolationMode mode, long runUidBase, int runAccounts, RunLimits limits) {

  public IsolationSettings {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(limits, "limits");
    new RunAccounts(runUidBase, runAccounts); // validates the range
  }

  /** The accounts this configuration gives runs. */
  public RunAccounts accounts() {
    return new RunAccounts(runUidBase, runAccounts);
  }
}
