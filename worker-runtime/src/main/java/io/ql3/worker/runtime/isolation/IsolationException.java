package io.ql3.worker.runtime.isolation;

import java.util.List;

/** {@code isolation = "required"} and a part is missing: each entry names one, with a remedy. */
public final class IsolationException extends Exception {

  private final List<String> missing;

  public IsolationException(List<String> missing) {
    super("isolation = \"required\" but " + String.join("; ", missing));
    this.missing = List.copyOf(missing);
  }

  public List<String> missing() {
    return missing;
  }
}
