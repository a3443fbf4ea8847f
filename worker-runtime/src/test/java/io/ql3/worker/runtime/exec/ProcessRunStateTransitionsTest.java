package io.ql3.worker.runtime.exec;

import static io.ql3.worker.runtime.exec.ProcessRunState.COMPLETED;
import static io.ql3.worker.runtime.exec.ProcessRunState.DISCARDED;
import static io.ql3.worker.runtime.exec.ProcessRunState.EXITED;
import static io.ql3.worker.runtime.exec.ProcessRunState.PREPARED;
import static io.ql3.worker.runtime.exec.ProcessRunState.RUNNING;
import static io.ql3.worker.runtime.exec.ProcessRunState.TERMINATING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A process run's transition table, every pair of states against the one expected answer. */
class ProcessRunStateTransitionsTest {
  private static final Map<ProcessRunState, Set<ProcessRunState>> MOVES =
      Map.of(
          PREPARED, EnumSet.of(RUNNING, COMPLETED, DISCARDED),
          RUNNING, EnumSet.of(TERMINATING, EXITED),
          TERMINATING, EnumSet.of(EXITED),
          EXITED, EnumSet.of(COMPLETED),
          COMPLETED, EnumSet.noneOf(ProcessRunState.class),
          DISCARDED, EnumSet.noneOf(ProcessRunState.class));

  @Test
  void aRunCompletesOnlyAfterItsMainProcessExitedOrWithoutEverStarting() {
    for (ProcessRunState from : ProcessRunState.values()) {
      for (ProcessRunState to : ProcessRunState.values()) {
        assertThat(from.canMoveTo(to))
            .as("%s -> %s", from, to)
            .isEqualTo(MOVES.get(from).contains(to));
      }
    }
  }
}
