package io.ql3.worker.runtime.session;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The client's view of its worker session. The server is the authority on generation, version and
 * lease; these states are what the agent may do with what it holds.
 *
 * <pre>
 * NONE ──register──▶ REGISTERING ──200──▶ ACTIVE ⇄ SUSPENDED (credentials rejected)
 *   ▲                    │                  │  \
 *   └── refused ◀────────┘                  │   └──▶ DRAINING ──▶ OFFLINE
 *                                           ▼            │
 *                          FENCED / EXPIRED ◀────────────┘  (409, drift, a heartbeat or transition
 *                                                               client bug / local lease end)
 * </pre>
 */
public enum SessionState {
  /** No session: before the first register, or after a refused one. */
  NONE,
  /** A register is in flight or waiting to be resent with the same bytes. */
  REGISTERING,
  /** Registered and heartbeating; the only state that may pull. */
  ACTIVE,
  /** Active on the server, but our credentials were rejected: no pulls, heartbeats retried. */
  SUSPENDED,
  /** Draining: 0 capacity, heartbeats and completions go on, no pulls. */
  DRAINING,
  /** Offline: the session ended cleanly. Terminal. */
  OFFLINE,
  /** Fenced by the server (409), by a drift, or by a client bug: never heartbeated again. */
  FENCED,
  /** Past the local lease deadline: never heartbeated again. */
  EXPIRED;

  private static final Map<SessionState, Set<SessionState>> ALLOWED =
      Map.of(
          NONE, EnumSet.of(REGISTERING),
          REGISTERING, EnumSet.of(ACTIVE, NONE, FENCED),
          ACTIVE, EnumSet.of(SUSPENDED, DRAINING, OFFLINE, FENCED, EXPIRED),
          SUSPENDED, EnumSet.of(ACTIVE, DRAINING, OFFLINE, FENCED, EXPIRED),
          DRAINING, EnumSet.of(OFFLINE, FENCED, EXPIRED),
          OFFLINE, EnumSet.noneOf(SessionState.class),
          FENCED, EnumSet.of(REGISTERING),
          EXPIRED, EnumSet.of(REGISTERING));

  /** True when the table allows moving from this state to {@code next}. */
  public boolean canMoveTo(SessionState next) {
    return ALLOWED.get(this).contains(next);
  }

  /** The session exists on the server and the agent still heartbeats it. */
  public boolean isLive() {
    return this == ACTIVE || this == SUSPENDED || this == DRAINING;
  }

  /** The session is over for the agent; its runs must settle before a new register. */
  public boolean isEnded() {
    return this == OFFLINE || this == FENCED || this == EXPIRED;
  }
}
