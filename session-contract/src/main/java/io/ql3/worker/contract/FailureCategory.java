package io.ql3.worker.contract;

import java.util.Locale;

/** Failure category: transient failures may be retried, permanent ones not. */
public enum FailureCategory implements WireEnum {
  TRANSIENT,
  PERMANENT;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "transient"}. */
  @Override
  public String wire() {
    return wire;
  }

  /** The constant for a wire string, or null when there is none. */
  public static FailureCategory fromWire(String s) {
    for (FailureCategory v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
