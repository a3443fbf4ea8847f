package io.ql3.worker.contract;

import java.util.Locale;

/**
 * Session status as the server owns it (section 4): active → draining → offline. The allowed
 * transitions are the table in {@link #canTransitionTo}; fenced and expired are client-side
 * conditions, not statuses.
 */
public enum SessionStatus implements WireEnum {
  ACTIVE,
  DRAINING,
  OFFLINE;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The wire spelling, e.g. {@code "active"}. */
  @Override
  public String wire() {
    return wire;
  }

  /**
   * The transition table: active→draining, active→offline (only when the client holds no unsettled
   * run: the caller's fact), draining→offline. Nothing leaves offline.
   */
  public boolean canTransitionTo(SessionStatus to) {
    switch (this) {
      case ACTIVE:
        return to == DRAINING || to == OFFLINE;
      case DRAINING:
        return to == OFFLINE;
      default:
        return false;
    }
  }

  /** The constant for a wire string, or null when there is none. */
  public static SessionStatus fromWire(String s) {
    for (SessionStatus v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    return null;
  }
}
