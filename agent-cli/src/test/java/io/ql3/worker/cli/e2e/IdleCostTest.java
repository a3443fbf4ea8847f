package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an idle agent costs the control plane: with nothing queued, requests are heartbeats when due
 * plus pulls caused by a long-poll return or a hint, never a fixed ticker. Over h2 the one pull
 * stays parked; over http/1.1 an empty answer without a hint is not followed by another pull at
 * all. The bounds are computed from the real time observed (the server's clock decides "due"), so
 * the test asserts counts, not durations: a hot loop would make hundreds of requests in this
 * window.
 */
class IdleCostTest {
  /** The contract's smallest heartbeat interval, so a short window sees several heartbeats. */
  private static final Settings FAST = new Settings(5_000, 15_000, 15_000, 500, 64);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(
      value = Alpn.class,
      names = {"H2_AND_HTTP1", "HTTP1_ONLY"})
  void anIdleAgentSendsDueHeartbeatsAndNoPullLoop(Alpn alpn) throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, alpn, FAST, false);
        InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
      agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
      long pullsAtStart = cp.answered("pull");
      long heartbeatsAtStart = cp.answered("heartbeat");
      long start = System.nanoTime();
      // Three heartbeat intervals of idling (a condition, not a sleep: the third heartbeat
      // answered).
      ControlPlaneFixture.await(
          "three heartbeats",
          Duration.ofSeconds(60),
          () -> cp.answered("heartbeat") >= heartbeatsAtStart + 3);
      double elapsedMs = (System.nanoTime() - start) / 1e6;

      long heartbeats = cp.answered("heartbeat") - heartbeatsAtStart;
      long pulls = cp.answered("pull") - pullsAtStart;
      // Heartbeats only when due: at most one per interval observed, plus the one in flight at the
      // start.
      assertThat(heartbeats).as(agent.output()).isLessThanOrEqualTo((long) (elapsedMs / 5_000) + 1);
      // h2: the long poll (55 s) is still parked, nothing was answered in the window. http/1.1: the
      // server's empty answers carry no hint (nothing delayed is queued), so no pull follows them.
      assertThat(pulls).as(agent.output()).isLessThanOrEqualTo(1);
      // One connection the whole time, and the server saw no contract violation.
      assertThat(cp.connections()).hasSize(1);
      assertThat(cp.server.auditor().violations()).as(agent.output()).isEmpty();
      assertThat(agent.shutdown(Duration.ofSeconds(60))).isEqualTo(0);
    }
  }
}
