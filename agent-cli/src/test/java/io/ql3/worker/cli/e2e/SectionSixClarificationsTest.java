package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import io.ql3.worker.journal.JournalInspector;
import io.ql3.worker.journal.Settlement;
import io.ql3.worker.runtime.status.StatusFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The section 6 clarifications end to end: the real agent against the reference control plane's
 * fault plan, over real TLS.
 */
class SectionSixClarificationsTest {
  static final Settings FIVE_SECOND_HEARTBEATS = new Settings(5_000, 15_000, 15_000, 500, 64);

  @TempDir Path dir;

  /**
   * A 503 answered by an intermediary (a 5 KB text/html page, over the error cap) is transient, not
   * drift, and a {@code retry-after: 86400} on a heartbeat is capped at the heartbeat interval: the
   * one session lives on and keeps heartbeating.
   */
  @Test
  void aProxyPageAndADayLongRetryAfterKeepTheSession() throws Exception {
    try (ControlPlaneFixture cp =
            new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FIVE_SECOND_HEARTBEATS, false);
        InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
      ControlPlaneFixture.await(
          "registered", Duration.ofSeconds(30), () -> cp.sessions().size() == 1);
      cp.server.faults().add("heartbeat", Fault.Action.PROXY_PAGE, 503, null, 0, 0, 1);
      cp.server.faults().add("heartbeat", Fault.Action.ERROR, 503, "unavailable", 86_400, 0, 1);
      long version = cp.sessions().get(0).version();
      ControlPlaneFixture.await(
          "two refused heartbeats, then accepted ones",
          Duration.ofSeconds(60),
          () ->
              cp.sessions().get(0).version() >= version + 2
                  && cp.events.lines().stream().filter(l -> l.startsWith("fault ")).count() >= 2);
      List<Views.SessionView> sessions = cp.sessions();
      assertThat(sessions).as(agent.output()).hasSize(1);
      assertThat(sessions.get(0).status()).isEqualTo("active");
      assertThat(sessions.get(0).fenced()).isFalse();
      assertThat(agent.output()).doesNotContain("event=session.drift");
      assertThat(agent.shutdown(Duration.ofSeconds(60))).isEqualTo(0);
      assertThat(cp.sessions().get(0).status()).isEqualTo("offline");
    }
  }

  /**
   * A completion refused 400 cannot succeed by resending: it is settled undeliverable in the
   * journal (an error log line says so), and the drain still ends offline with exit 0.
   */
  @Test
  void aCompletionRefused400SettlesAndDrainStillEndsOffline() throws Exception {
    try (ControlPlaneFixture cp =
        new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FIVE_SECOND_HEARTBEATS, false)) {
      cp.server.faults().add("complete", Fault.Action.ERROR, 400, "contract_violation", 0, 0, 1);
      String run = cp.submit(1, "noop", "{}").get(0);
      try (InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
        agent.awaitOutput("event=completion.undeliverable run=" + run, Duration.ofSeconds(60));
        assertThat(agent.shutdown(Duration.ofSeconds(60))).as(agent.output()).isEqualTo(0);
        assertThat(agent.output()).contains("event=session.state from=DRAINING to=OFFLINE");
        assertThat(cp.sessions()).hasSize(1);
        assertThat(cp.sessions().get(0).status()).isEqualTo("offline");
      }
      var facts =
          JournalInspector.verify(
                  dir.resolve("agent").resolve("journal"), ControlPlaneFixture.WORKER)
              .facts();
      assertThat(facts.recentCompletion(run, 1))
          .get()
          .satisfies(f -> assertThat(f.settlement()).isEqualTo(Settlement.UNDELIVERABLE));
    }
  }

  /**
   * A pull refused 400 stops pulling and only that: the one session keeps heartbeating (so the runs
   * it holds keep their lease), publishes and shows no free slot, leaves queued work alone, and
   * still drains offline with exit 0.
   */
  @Test
  void aPullRefused400StopsPullingWhileTheSessionHeartbeatsOnAndDrainsOffline() throws Exception {
    try (ControlPlaneFixture cp =
        new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FIVE_SECOND_HEARTBEATS, false)) {
      cp.server.faults().add("pull", Fault.Action.ERROR, 400, "contract_violation", 0, 0, 1);
      Path config = cp.agentConfig("");
      try (InProcessAgent agent = InProcessAgent.start(config)) {
        agent.awaitOutput(
            "level=error event=execution.refused operation=pull", Duration.ofSeconds(60));
        String run = cp.submit(1, "noop", "{}").get(0);
        long version = cp.sessions().get(0).version();
        ControlPlaneFixture.await(
            "two more heartbeats accepted",
            Duration.ofSeconds(60),
            () -> cp.sessions().get(0).version() >= version + 2);
        assertThat(cp.sessions()).as(agent.output()).hasSize(1);
        assertThat(cp.sessions().get(0).fenced()).isFalse();
        assertThat(cp.sessions().get(0).status()).isEqualTo("active");
        assertThat(cp.completed(List.of(run))).as("queued work is left alone").isFalse();
        var status = StatusFile.read(config.resolveSibling("status.json"));
        assertThat(status.get("sessionState")).isEqualTo("active");
        assertThat(String.valueOf(status.get("availableSlots"))).isEqualTo("0");
        assertThat(status.get("capacityLimitedBy")).isEqualTo("lifecycle");
        assertThat(agent.shutdown(Duration.ofSeconds(60))).as(agent.output()).isEqualTo(0);
        assertThat(cp.sessions().get(0).status()).isEqualTo("offline");
      }
    }
  }

  /**
   * SIGTERM while registering with the ingress unreachable: a register that never left holds
   * nothing, so the drain has nothing to wait for; the agent says so and exits 0.
   */
  @Test
  void aShutdownWhileRegisteringWithTheIngressUnreachableExitsZero() throws Exception {
    Path config;
    try (ControlPlaneFixture cp =
        new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FIVE_SECOND_HEARTBEATS, false)) {
      config = cp.agentConfig("");
    } // the ingress is gone: nothing listens on its port any more
    try (InProcessAgent agent = InProcessAgent.start(config)) {
      agent.awaitOutput("to=REGISTERING", Duration.ofSeconds(30));
      assertThat(agent.shutdown(Duration.ofSeconds(60))).as(agent.output()).isEqualTo(0);
      assertThat(agent.output())
          .contains("shutdown while registering: no session is held, nothing to drain")
          .contains("event=agent.stopped");
    }
  }
}
