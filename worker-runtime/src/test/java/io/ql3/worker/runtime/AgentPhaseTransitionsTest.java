package io.ql3.worker.runtime;

import static io.ql3.worker.runtime.WorkerAgent.Phase.DRAINING;
import static io.ql3.worker.runtime.WorkerAgent.Phase.RECONCILING;
import static io.ql3.worker.runtime.WorkerAgent.Phase.RUNNING;
import static io.ql3.worker.runtime.WorkerAgent.Phase.STOPPED;
import static io.ql3.worker.runtime.WorkerAgent.Phase.WAITING_FOR_CREDENTIALS;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.runtime.WorkerAgent.Phase;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The agent phase's transition table, every pair of phases against the one expected answer. */
class AgentPhaseTransitionsTest {
  private static final Map<Phase, Set<Phase>> MOVES =
      Map.of(
          WAITING_FOR_CREDENTIALS, EnumSet.of(RECONCILING, STOPPED),
          RECONCILING, EnumSet.of(RUNNING, DRAINING, STOPPED),
          RUNNING, EnumSet.of(DRAINING, STOPPED),
          DRAINING, EnumSet.of(STOPPED),
          STOPPED, EnumSet.noneOf(Phase.class));

  @Test
  void phasesOnlyMoveForwardAndAnyOfThemMayStop() {
    for (Phase from : Phase.values()) {
      for (Phase to : Phase.values()) {
        boolean expected = MOVES.get(from).contains(to);
        assertThat(from.canMoveTo(to)).as("%s -> %s", from, to).isEqualTo(expected);
      }
    }
  }

  @Test
  void noPhaseGoesBackToWaitingForCredentialsAndStoppedIsFinal() {
    for (Phase p : Phase.values()) {
      assertThat(p.canMoveTo(WAITING_FOR_CREDENTIALS)).isFalse();
      assertThat(STOPPED.canMoveTo(p)).isFalse();
    }
  }
}
