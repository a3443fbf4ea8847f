package io.ql3.worker.contract;

import java.util.Locale;

/** Status of the previous, now fenced session in a register response's {@code replaced}. */
public enum ReplacedStatus implements WireEnum {
  ACTIVE,
  DRAINING,
  OFFLINE,
  EXPIRED;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "active"}. */
  @Override
  public String wire() {
    return wire;
  }

  /** The constant for a wire string, or null when there is none. */
  public static ReplacedStatus fromWire(String s) {
    for (ReplacedStatus v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
