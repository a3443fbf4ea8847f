package io.ql3.worker.controlplane.state;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The server's view of a session's status, with the table of allowed moves (fencing is orthogonal).
 */
public enum SessionStatus {
  ACTIVE("active"),
  DRAINING("draining"),
  OFFLINE("offline"),
  /** The lease ran out on the server's clock before a heartbeat renewed it. */
  EXPIRED("expired");

  private static final Map<SessionStatus, Set<SessionStatus>> ALLOWED =
      Map.of(
          ACTIVE, EnumSet.of(DRAINING, OFFLINE, EXPIRED),
          DRAINING, EnumSet.of(OFFLINE, EXPIRED),
          OFFLINE, EnumSet.noneOf(SessionStatus.class),
          EXPIRED, EnumSet.noneOf(SessionStatus.class));

  private final String wire;

  SessionStatus(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public boolean canMoveTo(SessionStatus next) {
    return ALLOWED.get(this).contains(next);
  }

  /** True while the session holds a lease that a heartbeat can renew. */
  public boolean leased() {
    return this == ACTIVE || this == DRAINING;
  }

  public static SessionStatus ofWire(String value) {
    for (SessionStatus s : values()) {
      if (s.wire.equals(value)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown session status " + value);
  }
}
