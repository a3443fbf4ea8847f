package io.ql3.worker.contract;

import java.util.Locale;

/** Outcome of a completed run (section 5, complete). */
public enum Outcome implements WireEnum {
  SUCCEEDED,
  FAILED,
  CANCELLED,
  UNCERTAIN;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "succeeded"}. */
  @Override
  public String wire() {
    return wire;
  }

  /** The constant for a wire string, or null when there is none. */
  public static Outcome fromWire(String s) {
    for (Outcome v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
