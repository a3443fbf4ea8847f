package io.ql3.worker.runtime.exec;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of one {@link ProcessRun} and the moves allowed between them; any other move is a bug.
 *
 * <p>PREPARED → RUNNING → (TERMINATING on cancel/timeout) → EXITED (main process reaped) →
 * COMPLETED (no process of the run left and its output ended, or the drain timeout passed). A run
 * that is never started goes from PREPARED to COMPLETED (already cancelled, or the launch failed)
 * or to DISCARDED. COMPLETED and DISCARDED are final.
 */
enum ProcessRunState {
  PREPARED,
  RUNNING,
  TERMINATING,
  EXITED,
  COMPLETED,
  DISCARDED;

  private static final Map<ProcessRunState, Set<ProcessRunState>> ALLOWED =
      new EnumMap<>(ProcessRunState.class);

  static {
    ALLOWED.put(PREPARED, EnumSet.of(RUNNING, COMPLETED, DISCARDED));
    ALLOWED.put(RUNNING, EnumSet.of(TERMINATING, EXITED));
    ALLOWED.put(TERMINATING, EnumSet.of(EXITED));
    ALLOWED.put(EXITED, EnumSet.of(COMPLETED));
    ALLOWED.put(COMPLETED, EnumSet.noneOf(ProcessRunState.class));
    ALLOWED.put(DISCARDED, EnumSet.noneOf(ProcessRunState.class));
  }

  /** True when the table allows the move from this state to {@code to}. */
  boolean canMoveTo(ProcessRunState to) {
    return ALLOWED.get(this).contains(to);
  }
}
