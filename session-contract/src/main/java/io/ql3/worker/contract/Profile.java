package io.ql3.worker.contract;

import java.util.Locale;

/** Cadence profile of the agent (edge devices or node hosts). */
public enum Profile implements WireEnum {
  EDGE,
  NODE;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "edge"}. */
  @Override
  public String wire() {
    return wire;
  }

  /** The constant for a wire string, or null when there is none. */
  public static Profile fromWire(String s) {
    for (Profile v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
