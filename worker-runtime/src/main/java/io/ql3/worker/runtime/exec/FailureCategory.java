package io.ql3.worker.runtime.exec;

/** Whether retrying the same run can help: the contract's {@code failure.category}. */
public enum FailureCategory {
  /** Retrying cannot help (bad input, policy refusal): the server does not redeliver. */
  PERMANENT("permanent"),
  /** Retrying may help (timeouts, external kills, resource shortage). */
  TRANSIENT("transient");

  private final String wireName;

  FailureCategory(String wireName) {
    this.wireName = wireName;
  }

  /** The contract's spelling: {@code permanent} or {@code transient}. */
  public String wireName() {
    return wireName;
  }

  /** Parses the contract's spelling; {@code null} for anything else. */
  public static FailureCategory fromWireName(String name) {
    for (FailureCategory c : values()) {
      if (c.wireName.equals(name)) {
        return c;
      }
    }
    return null;
  }
}
