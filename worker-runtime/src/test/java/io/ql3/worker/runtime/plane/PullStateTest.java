package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pull state machine's whole transition table, written out. */
class PullStateTest {
  @Test
  void exactlyTheseTransitionsAreAllowed() {
    List<String> allowed = new ArrayList<>();
    for (PullState from : PullState.values()) {
      for (PullState to : PullState.values()) {
        if (from.canMoveTo(to)) {
          allowed.add(from + "->" + to);
        }
      }
    }
    assertThat(allowed)
        .containsExactlyInAnyOrder(
            "IDLE->ON_THE_WIRE",
            "IDLE->AWAITING_RESEND",
            "ON_THE_WIRE->IDLE",
            "ON_THE_WIRE->AWAITING_RESEND",
            "ON_THE_WIRE->BLOCKED_ON_HTTP1",
            "AWAITING_RESEND->ON_THE_WIRE",
            "AWAITING_RESEND->IDLE",
            "BLOCKED_ON_HTTP1->ON_THE_WIRE",
            "BLOCKED_ON_HTTP1->IDLE",
            "ON_THE_WIRE->ANSWER_LOST",
            "ANSWER_LOST->IDLE");
  }

  @Test
  void aTransitionOutsideTheTableIsABug() {
    assertThatThrownBy(() -> PullState.IDLE.to(PullState.BLOCKED_ON_HTTP1))
        .isInstanceOf(IllegalStateException.class);
  }
}
