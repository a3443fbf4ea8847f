package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionStatusTest {

  @Test
  void transitionTable() {
    for (SessionStatus from : SessionStatus.values()) {
      for (SessionStatus to : SessionStatus.values()) {
        boolean expected =
            (from == SessionStatus.ACTIVE && to != SessionStatus.ACTIVE)
                || (from == SessionStatus.DRAINING && to == SessionStatus.OFFLINE);
        assertThat(from.canTransitionTo(to)).as(from + "->" + to).isEqualTo(expected);
        assertThat(TransitionRequest.allowed(from, to)).isEqualTo(expected);
      }
    }
  }

  @Test
  void wireNames() {
    for (SessionStatus s : SessionStatus.values()) {
      assertThat(SessionStatus.fromWire(s.wire())).isSameAs(s);
    }
    assertThat(SessionStatus.fromWire("expired")).isNull();
    assertThat(ReplacedStatus.fromWire("expired")).isEqualTo(ReplacedStatus.EXPIRED);
    assertThat(Profile.fromWire("edge")).isEqualTo(Profile.EDGE);
  }
}
