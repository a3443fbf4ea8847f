package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusVerdictTest {
  static final Instant T = Instant.parse("2026-12-02T01:00:00Z");

  private static Map<String, Object> file(Instant at, String phase, String session) {
    return Map.of(
        "updatedAt", at.toString(), "pid", 4242L, "phase", phase, "sessionState", session);
  }

  @Test
  void freshFileOfALiveProcessIsRunningAndReadyOnceActive() {
    StatusVerdict v =
        StatusVerdict.of(
            file(T, "running", "active"), T.plusSeconds(2), Duration.ofSeconds(1), p -> true);
    assertThat(v.liveness()).isEqualTo(StatusVerdict.Liveness.RUNNING);
    assertThat(v.ready(file(T, "running", "active"))).isTrue();
    assertThat(v.ready(file(T, "running", "registering"))).isFalse();
  }

  @Test
  void olderThanThreeCadencesIsStale() {
    // edge: 1 s cadence, 3 s limit
    assertThat(
            StatusVerdict.of(
                    file(T, "running", "active"),
                    T.plusMillis(3000),
                    Duration.ofSeconds(1),
                    p -> true)
                .liveness())
        .isEqualTo(StatusVerdict.Liveness.RUNNING);
    StatusVerdict v =
        StatusVerdict.of(
            file(T, "running", "active"), T.plusMillis(3001), Duration.ofSeconds(1), p -> true);
    assertThat(v.liveness()).isEqualTo(StatusVerdict.Liveness.STALE);
    assertThat(v.why()).contains("cadence is stuck");
    // a 5 s cadence allows 15 s
    assertThat(
            StatusVerdict.of(
                    file(T, "running", "active"),
                    T.plusSeconds(14),
                    Duration.ofSeconds(5),
                    p -> true)
                .liveness())
        .isEqualTo(StatusVerdict.Liveness.RUNNING);
  }

  @Test
  void aFastCadenceStillAllowsThreeWriteIntervals() {
    // node: 250 ms cadence, but the file is rewritten at most once a second
    assertThat(StatusVerdict.maxAge(Duration.ofMillis(250))).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aDeadWriterIsGoneAndAStoppedOneSaysSo() {
    assertThat(
            StatusVerdict.of(file(T, "running", "active"), T, Duration.ofSeconds(1), p -> false)
                .liveness())
        .isEqualTo(StatusVerdict.Liveness.GONE);
    assertThat(
            StatusVerdict.of(file(T, "stopped", "offline"), T, Duration.ofSeconds(1), p -> false)
                .liveness())
        .isEqualTo(StatusVerdict.Liveness.STOPPED);
  }
}
