package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.SessionId;

/**
 * What the coordinator knows about its session, shared by its parts ({@link RequestPlanner}, {@link
 * SessionAnswerHandler}), and the one checked way the state moves ({@link #move}): every move is
 * allowed by {@link SessionState#canMoveTo} and told to the listener. Cadence thread only.
 */
final class CurrentSession {
  final SessionListener listener;
  final SessionTimers timers;

  SessionState state = SessionState.NONE;
  SessionId sessionId;
  long generation;
  long version;

  /** The highest generation this worker held (journal, then register answers); null: none yet. */
  Long highestGeneration;

  long heartbeatIntervalMs;

  /** The session request not settled yet, or null. */
  PendingRequest pending;

  boolean registerRequested;

  /** Our credentials were refused since the last accepted session request. */
  boolean credentialsRefused;

  /**
   * A completion of this session was refused as a client bug: no more pulls under it (section 6).
   */
  boolean pullsStopped;

  /** The time of the latest step or operation (for backoffs decided outside a step). */
  long lastNow;

  boolean drainRequested;
  boolean offlineRequested;
  String lastProblem = "";

  CurrentSession(SessionListener listener, SessionTimers timers) {
    this.listener = listener;
    this.timers = timers;
  }

  /** A 200 answer drifted: fail closed, the session is treated as fenced (section 6). */
  void drifted(Drift drift) {
    lastProblem = "drift: " + drift.reason().code() + ": " + drift.detail();
    listener.drifted(drift);
    move(SessionState.FENCED, lastProblem);
  }

  /**
   * Shutdown while registering: a register that never reached the server holds nothing, and one
   * that may have been applied holds no runs yet (the next register fences it), so drain has
   * nothing to wait for.
   */
  void abandonRegister() {
    pending = null;
    lastProblem = "shutdown while registering";
    move(SessionState.NONE, "shutdown while registering: no session is held, nothing to drain");
  }

  void expireIfPast(long now) {
    if (state.isLive() && timers.leasePassed(now)) {
      move(SessionState.EXPIRED, "local lease deadline passed");
    }
  }

  /**
   * Moves to {@code next} (nothing when already there). An ended session backs the next register
   * off and never resends a request that is not on the wire.
   *
   * @throws IllegalStateException when the state machine does not allow the move
   */
  void move(SessionState next, String why) {
    SessionState prev = state;
    if (prev == next) {
      return;
    }
    if (!prev.canMoveTo(next)) {
      throw new IllegalStateException(
          "session state " + prev + " cannot move to " + next + " (" + why + ")");
    }
    state = next;
    if (next == SessionState.FENCED || next == SessionState.EXPIRED) {
      // The next register waits a growing delay: a server that keeps fencing (or answers that
      // keep drifting) costs one session per backoff step, not one per cadence tick.
      timers.backOff(lastNow);
      credentialsRefused = false;
    }
    if (next.isEnded() || next == SessionState.NONE) {
      timers.forgetClockGap(); // a new session starts with a lease of its own
      // An outstanding request of an ended session is never resent.
      if (pending != null && !pending.onTheWire()) {
        pending = null;
      }
    }
    listener.stateChanged(prev, next, why);
  }
}
