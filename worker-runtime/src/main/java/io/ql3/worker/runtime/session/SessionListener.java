package io.ql3.worker.runtime.session;

import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import java.util.List;

/**
 * What the coordinator tells the rest of the agent. Every call happens on the cadence thread,
 * inside {@link SessionCoordinator#tick(long)} or one of its operations; implementations must not
 * block for long (a journal append is fine).
 */
public interface SessionListener {
  /** A session became active on the server (journal it before anything is pulled under it). */
  default void registered(SessionId sessionId, long generation) {}

  /** The state changed; {@code why} is a short operator-readable reason. */
  default void stateChanged(SessionState from, SessionState to, String why) {}

  /** The server asked for these runs to be cancelled (from a heartbeat answer). */
  default void cancelRequested(List<RunId> runs) {}

  /** A heartbeat said runs are queued for this worker: a hint to pull soon. */
  default void workAvailable() {}

  /** A 200 answer drifted from what we hold: the session is treated as fenced. */
  default void drifted(Drift drift) {}

  /** A request failed without changing the state (transient, outcome unknown, not sent). */
  default void requestFailed(String operation, String what) {}
}
