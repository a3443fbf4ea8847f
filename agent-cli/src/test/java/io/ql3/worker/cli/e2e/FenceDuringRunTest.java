package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server fences the worker's session while a run is running: the agent stops pulling at once
 * (its parked long poll is answered 409 and no other pull follows), the run's completion still goes
 * to the OLD session path and is accepted, and a new session registers only after that.
 */
class FenceDuringRunTest {
  @TempDir Path dir;

  @Test
  void fenceDuringARunCompletesItUnderTheOldSessionAndRegistersAnewOnlyAfterIt() throws Exception {
    try (ControlPlaneFixture cp =
            new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, Settings.defaults(), true);
        InProcessAgent agent = InProcessAgent.start(cp.agentConfig(""))) {
      agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
      Path release = dir.resolve("release");
      String runId =
          cp.submit(
                  1,
                  "process",
                  "{\"argv\":[\"/bin/sh\",\"-c\",\"while [ ! -e '"
                      + release
                      + "' ]; do sleep 0.1; done; echo released\"],\"cwd\":null,\"env\":{}}")
              .get(0);
      agent.awaitOutput("event=run.started run=" + runId, Duration.ofSeconds(60));
      // One slot left: the agent's next pull is parked on the server (h2 long poll).
      ControlPlaneFixture.await(
          "a parked pull",
          Duration.ofSeconds(30),
          () -> cp.server.controlPlane().parkedCount() == 1);
      Views.RunView leased = cp.run(runId);
      String oldSession = leased.lease().sessionId();
      long oldGeneration = leased.lease().generation();

      int fencedAt = cp.events.lines().size();
      assertThat(cp.server.controlPlane().fenceWorker(ControlPlaneFixture.WORKER)).isTrue();
      agent.awaitOutput("to=FENCED", Duration.ofSeconds(30));

      // While the run still runs: no new session (its run is not settled) and no pull.
      long pullsAfterFence = cp.answered("pull");
      // A window (3 cadence ticks) in which a wrong pull or register would show; nothing is timed.
      Thread.sleep(3_000);
      assertThat(cp.sessions()).as(agent.output()).hasSize(1);
      assertThat(cp.answered("pull")).isEqualTo(pullsAfterFence);
      assertThat(cp.run(runId).state())
          .isEqualTo("queued"); // reclaimed by the fence, attempt 1 still completable

      Files.writeString(release, "go");
      ControlPlaneFixture.await(
          "the run completes",
          Duration.ofSeconds(60),
          () -> cp.run(runId).state().equals("completed"));
      ControlPlaneFixture.await(
          "a new active session",
          Duration.ofSeconds(60),
          () ->
              cp.sessions().stream()
                  .anyMatch(s -> s.status().equals("active") && !s.sessionId().equals(oldSession)));

      Views.RunView run = cp.run(runId);
      assertThat(run.outcome()).isEqualTo("succeeded");
      assertThat(run.completedBySession()).isEqualTo(oldSession);
      assertThat(run.completion())
          .contains("\"attempt\":1")
          .contains("\"generation\":" + oldGeneration)
          .contains("released");

      List<Views.SessionView> sessions = cp.sessions();
      assertThat(sessions).hasSize(2);
      Views.SessionView fresh =
          sessions.stream()
              .filter(s -> !s.sessionId().equals(oldSession))
              .findFirst()
              .orElseThrow();
      // The reference server's fence itself consumes a generation, so the new one is old + 2.
      assertThat(fresh.generation()).isGreaterThan(oldGeneration);
      assertThat(fresh.registeredAtMs()).isGreaterThanOrEqualTo(run.completedAtMs());

      // The server's request log from the fence to the new register: exactly one pull answer (the
      // parked
      // long poll, refused 409), the completion under the old session, nothing else pulled.
      String events = cp.events.toString();
      int register = cp.events.indexOf(fencedAt, "register ", "generation=" + fresh.generation());
      int complete =
          cp.events.indexOf(fencedAt, "complete ", "session=" + oldSession, "run=" + runId);
      assertThat(register).as(events).isPositive();
      assertThat(complete).as(events).isPositive().isLessThan(register);
      List<String> pullAnswers =
          cp.events.lines().subList(fencedAt, register).stream()
              .filter(l -> l.startsWith("answer ") && l.contains(" pull "))
              .toList();
      assertThat(pullAnswers).as(events).hasSize(1);
      assertThat(pullAnswers.get(0)).contains("pull 409").contains("session_fenced");

      String out = agent.output();
      int delivered = out.indexOf("event=completion.delivered run=" + runId);
      int reRegister = out.indexOf("to=REGISTERING", out.indexOf("to=FENCED"));
      assertThat(delivered).as(out).isPositive().isLessThan(reRegister);
      assertThat(agent.count("event=run.started run=" + runId)).isEqualTo(1);

      assertThat(agent.shutdown(Duration.ofSeconds(60))).isEqualTo(0);
      assertThat(cp.server.auditor().violations()).as(out).isEmpty();
    }
  }
}
