package io.ql3.worker.contract;

import java.util.Locale;

/** Disposition of a completion: accepted, or a duplicate of an accepted one. */
public enum Disposition implements WireEnum {
  ACCEPTED,
  DUPLICATE;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "accepted"}. */
  @Override
  public String wire() {
    return wire;
  }

  /** The constant for a wire string, or null when there is none. */
  public static Disposition fromWire(String s) {
    for (Disposition v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
