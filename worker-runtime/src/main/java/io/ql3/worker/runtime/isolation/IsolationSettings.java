package io.ql3.worker.runtime.isolation;

import java.util.Objects;

/**
 * The isolation part of the configuration ({@code [execution]}: {@code isolation}, {@code
 * run-user}, {@code run-group}, {@code memory-max}, {@code pids-max}, {@code cpu-weight}); the
 * number of run accounts is {@code execution.slots} (see {@link RunAccounts}).
 */
public record IsolationSettings(
    IsolationMode mode, RunAs runAs, int runAccounts, RunLimits limits) {

  public IsolationSettings {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(runAs, "runAs");
    Objects.requireNonNull(limits, "limits");
    if (runAccounts < 1) {
      throw new IllegalArgumentException("runAccounts " + runAccounts + " < 1");
    }
  }

  /** The accounts this configuration gives runs on a host with these names. */
  RunAccounts accounts(AccountLookup names) throws IsolationParts.Missing {
    return runAs.resolve(runAccounts, names);
  }
}
