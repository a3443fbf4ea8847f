package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.completePath;
import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static io.ql3.worker.controlplane.Harness.W2;
import static io.ql3.worker.controlplane.SessionRulesTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.CanonicalJson;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Digests;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.RunSubmission;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pull, offers, long poll, reclaim, completion and cancellation rules over real TLS. */
class RunRulesTest {
  private Harness h;
  private WorkerClient c;

  @BeforeEach
  void start() throws Exception {
    h = new Harness();
    c = h.client(W1);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  private String register(WorkerClient client, String worker, int max) throws Exception {
    String s = Bodies.newId();
    assertThat(client.post(path(worker, s, "register"), Bodies.register(max, max)).status())
        .isEqualTo(200);
    return s;
  }

  private PullResponse pull(String s, long gen, int maxRuns, String pullId, int waitMs)
      throws Exception {
    WorkerClient.Res r = c.post(path(W1, s, "pull"), Bodies.pull(gen, maxRuns, pullId, waitMs));
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    return PullResponse.parse(r.body());
  }

  private void assertRun(String runId, String state, long attempt) {
    var v = h.cp().run(runId).orElseThrow();
    assertThat(v.state()).isEqualTo(state);
    if (attempt > 0) {
      assertThat(v.lease().attempt()).isEqualTo(attempt);
    }
  }

  @Test
  void pullOffersQueuedRunsBoundToTheSessionWithDigestAndAttempt() throws Exception {
    String s = register(c, W1, 4);
    List<String> ids = h.submit(3, "sleep", "{\"ms\":5}", null);
    String pullId = Bodies.newId();
    PullResponse p = pull(s, 1, 2, pullId, 0);
    assertThat(p.offers()).hasSize(2);
    assertThat(p.pullId().value()).isEqualTo(pullId);
    assertThat(p.nextPullAfterMs()).isZero();
    Offer o = p.offers().get(0);
    assertThat(o.runId().value()).isEqualTo(ids.get(0));
    assertThat(o.attempt()).isEqualTo(1);
    assertThat(o.executor()).isEqualTo("sleep");
    assertThat(o.specDigest())
        .isEqualTo(Digests.sha256("{\"ms\":5}".getBytes(StandardCharsets.UTF_8)));
    assertThat(CanonicalJson.toBytes(o.spec()))
        .isEqualTo("{\"ms\":5}".getBytes(StandardCharsets.UTF_8));
    assertThat(o.idempotencyKey()).isEqualTo(ids.get(0));
    assertThat(o.timeoutMs()).isEqualTo(60_000);
    var lease = h.cp().run(ids.get(0)).orElseThrow().lease();
    assertThat(lease.sessionId()).isEqualTo(s);
    assertThat(lease.generation()).isEqualTo(1);
    assertRun(ids.get(2), "queued", 0);
  }

  @Test
  void pullIdReplayReturnsTheOffersStillLeased() throws Exception {
    String s = register(c, W1, 4);
    List<String> ids = h.submit(2, "noop", "{}", null);
    String pullId = Bodies.newId();
    WorkerClient.Res first = c.post(path(W1, s, "pull"), Bodies.pull(1, 2, pullId, 0));
    h.submit(2, "noop", "{}", null);
    WorkerClient.Res replay = c.post(path(W1, s, "pull"), Bodies.pull(1, 2, pullId, 0));
    assertThat(replay.body()).isEqualTo(first.body());
    // One of them completed: the replay returns only the other one.
    c.post(completePath(W1, s, ids.get(0)), Bodies.succeeded(1, 1));
    PullResponse again = pull(s, 1, 2, pullId, 0);
    assertThat(again.offers()).extracting(o -> o.runId().value()).containsExactly(ids.get(1));
  }

  @Test
  void replayOfAnEmptyAnswerIsAFreshPull() throws Exception {
    String s = register(c, W1, 4);
    String pullId = Bodies.newId();
    assertThat(pull(s, 1, 2, pullId, 0).offers()).isEmpty();
    List<String> ids = h.submit(1, "noop", "{}", null);
    assertThat(pull(s, 1, 2, pullId, 0).offers())
        .extracting(o -> o.runId().value())
        .containsExactly(ids.get(0));
  }

  @Test
  void offersRespectTargetsExecutorsAndLabels() throws Exception {
    String s = register(c, W1, 8);
    h.submit(1, "noop", "{}", W2);
    h.submit(1, "docker", "{}", null);
    h.cp()
        .submit(
            new RunSubmission(
                1,
                "noop",
                "{}".getBytes(StandardCharsets.UTF_8),
                1000,
                null,
                Map.of("site", "elsewhere"),
                "labelled",
                null,
                0));
    List<String> mine = h.submit(1, "noop", "{}", W1);
    PullResponse p = pull(s, 1, 8, Bodies.newId(), 0);
    assertThat(p.offers()).extracting(o -> o.runId().value()).containsExactly(mine.get(0));
  }

  @Test
  void labelledRunsGoToASessionWhoseCapabilityHasTheLabels() throws Exception {
    String s = Bodies.newId();
    assertThat(c.post(path(W1, s, "register"), Bodies.register(4, 4, 4, "plant-7")).status())
        .isEqualTo(200);
    h.cp()
        .submit(
            new RunSubmission(
                1,
                "noop",
                "{}".getBytes(StandardCharsets.UTF_8),
                1000,
                null,
                Map.of("site", "plant-7"),
                "for-plant-7",
                null,
                0));
    assertThat(pull(s, 1, 4, Bodies.newId(), 0).offers())
        .extracting(o -> o.runId().value())
        .containsExactly("for-plant-7");
  }

  @Test
  void offersStopBeforeTheOneMebibyteResponseCap() throws Exception {
    String s = register(c, W1, 64);
    String big = "{\"argv\":[\"" + "x".repeat(60_000) + "\"],\"cwd\":null,\"env\":{}}";
    h.submit(20, "process", big, null);
    WorkerClient.Res r = c.post(path(W1, s, "pull"), Bodies.pull(1, 20, Bodies.newId(), 0));
    assertThat(r.body().length).isLessThanOrEqualTo(1_048_576);
    PullResponse p = PullResponse.parse(r.body());
    assertThat(p.offers()).hasSizeBetween(16, 17);
    // The rest stay queued for the next pull.
    assertThat(pull(s, 1, 20, Bodies.newId(), 0).offers()).hasSize(20 - p.offers().size());
  }

  @Test
  void delayedRunsGiveANextPullAfterHint() throws Exception {
    String s = register(c, W1, 4);
    h.cp()
        .submit(
            new RunSubmission(
                1,
                "noop",
                "{}".getBytes(StandardCharsets.UTF_8),
                1000,
                null,
                Map.of(),
                null,
                null,
                7_000));
    PullResponse p = pull(s, 1, 1, Bodies.newId(), 0);
    assertThat(p.offers()).isEmpty();
    assertThat(p.nextPullAfterMs()).isEqualTo(7_000);
    h.clock.advance(7_000);
    assertThat(pull(s, 1, 1, Bodies.newId(), 0).offers()).hasSize(1);
  }

  @Test
  void parkedPullIsAnsweredAsSoonAsARunIsQueuedForThatWorker() throws Exception {
    String s = register(c, W1, 4);
    CompletableFuture<WorkerClient.Res> parked =
        c.postAsync(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 60_000));
    awaitParked(1);
    h.submit(1, "noop", "{}", W2); // another worker's run does not wake it
    assertThat(parked).isNotDone();
    List<String> ids = h.submit(1, "noop", "{}", W1);
    WorkerClient.Res r = parked.get(20, TimeUnit.SECONDS);
    assertThat(PullResponse.parse(r.body()).offers())
        .extracting(o -> o.runId().value())
        .containsExactly(ids.get(0));
    assertThat(h.cp().parkedCount()).isZero();
  }

  @Test
  void parkedPullEndsEmptyAfterWaitMs() throws Exception {
    String s = register(c, W1, 4);
    WorkerClient.Res r =
        c.postAsync(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 200))
            .get(20, TimeUnit.SECONDS);
    PullResponse p = PullResponse.parse(r.body());
    assertThat(p.offers()).isEmpty();
    assertThat(h.cp().parkedCount()).isZero();
  }

  @Test
  void parkedPullOfAFencedSessionIsAnsweredSessionFenced() throws Exception {
    String s = register(c, W1, 4);
    CompletableFuture<WorkerClient.Res> parked =
        c.postAsync(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 60_000));
    awaitParked(1);
    register(c, W1, 4);
    assertError(parked.get(20, TimeUnit.SECONDS), 409, "session_fenced", Operation.PULL);
  }

  private void awaitParked(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (h.cp().parkedCount() < n) {
      assertThat(System.nanoTime()).as("pull parked in time").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void completionAcceptedThenDuplicateThenOtherBodyIsRunNotLeased() throws Exception {
    String s = register(c, W1, 4);
    String run = h.submit(1, "noop", "{}", null).get(0);
    pull(s, 1, 1, Bodies.newId(), 0);
    byte[] done = Bodies.succeeded(1, 1);
    CompleteResponse first = CompleteResponse.parse(c.post(completePath(W1, s, run), done).body());
    assertThat(first.disposition()).isEqualTo(Disposition.ACCEPTED);
    assertThat(first.runId().value()).isEqualTo(run);
    assertThat(first.attempt()).isEqualTo(1);
    CompleteResponse dup = CompleteResponse.parse(c.post(completePath(W1, s, run), done).body());
    assertThat(dup.disposition()).isEqualTo(Disposition.DUPLICATE);
    assertError(
        c.post(completePath(W1, s, run), Bodies.failed(1, 1, "boom")),
        409,
        "run_not_leased",
        Operation.COMPLETE);
    var v = h.cp().run(run).orElseThrow();
    assertThat(v.state()).isEqualTo("completed");
    assertThat(v.outcome()).isEqualTo("succeeded");
  }

  @Test
  void completionOfAnUnknownOrUnleasedRunIsRunNotLeased() throws Exception {
    String s = register(c, W1, 4);
    assertError(
        c.post(completePath(W1, s, "nope"), Bodies.succeeded(1, 1)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
    String run = h.submit(1, "noop", "{}", null).get(0);
    assertError(
        c.post(completePath(W1, s, run), Bodies.succeeded(1, 1)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
    pull(s, 1, 1, Bodies.newId(), 0);
    assertError(
        c.post(completePath(W1, s, run), Bodies.succeeded(2, 1)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
    assertError(
        c.post(completePath(W1, s, run), Bodies.succeeded(1, 9)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
  }

  @Test
  void fencedSessionsRunsAreReclaimedButStayCompletableUntilOfferedAgain() throws Exception {
    String s1 = register(c, W1, 4);
    List<String> ids = h.submit(2, "noop", "{}", null);
    pull(s1, 1, 2, Bodies.newId(), 0);
    String s2 = register(c, W1, 4); // fences s1: both runs go back to the queue
    assertRun(ids.get(0), "queued", 1);
    assertThat(h.cp().run(ids.get(0)).orElseThrow().nextAttempt()).isEqualTo(2);
    // The fenced session may still complete attempt 1 of a reclaimed run.
    assertThat(
            CompleteResponse.parse(
                    c.post(completePath(W1, s1, ids.get(0)), Bodies.succeeded(1, 1)).body())
                .disposition())
        .isEqualTo(Disposition.ACCEPTED);
    assertRun(ids.get(0), "completed", 1);
    // The other one is offered again as attempt 2; attempt 1 is gone.
    PullResponse p = pull(s2, 2, 4, Bodies.newId(), 0);
    assertThat(p.offers()).hasSize(1);
    assertThat(p.offers().get(0).runId().value()).isEqualTo(ids.get(1));
    assertThat(p.offers().get(0).attempt()).isEqualTo(2);
    assertError(
        c.post(completePath(W1, s1, ids.get(1)), Bodies.succeeded(1, 1)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
    assertThat(c.post(completePath(W1, s2, ids.get(1)), Bodies.succeeded(2, 2)).status())
        .isEqualTo(200);
  }

  @Test
  void expiredSessionsRunsGoToAnotherWorkerWithTheNextAttempt() throws Exception {
    String s1 = register(c, W1, 4);
    String run = h.submit(1, "noop", "{}", null).get(0);
    pull(s1, 1, 1, Bodies.newId(), 0);
    h.clock.advance(30_000);
    h.cp().sweep();
    assertRun(run, "queued", 1);
    WorkerClient c2 = h.client(W2);
    String t = register(c2, W2, 4);
    PullResponse p =
        PullResponse.parse(
            c2.post(path(W2, t, "pull"), Bodies.pull(1, 1, Bodies.newId(), 0)).body());
    assertThat(p.offers()).extracting(Offer::attempt).containsExactly(2L);
    // The expired session's late completion is refused now that the run was offered again.
    assertError(
        c.post(completePath(W1, s1, run), Bodies.succeeded(1, 1)),
        409,
        "run_not_leased",
        Operation.COMPLETE);
  }

  @Test
  void offlineTransitionReclaimsLeasedRuns() throws Exception {
    String s = register(c, W1, 4);
    String run = h.submit(1, "noop", "{}", null).get(0);
    pull(s, 1, 1, Bodies.newId(), 0);
    c.post(
        path(W1, s, "transition"),
        Bodies.transition(1, 1, SessionStatus.ACTIVE, SessionStatus.OFFLINE, 4));
    assertRun(run, "queued", 1);
    // Completion by the offline session is still accepted while the run was not offered again.
    assertThat(c.post(completePath(W1, s, run), Bodies.succeeded(1, 1)).status()).isEqualTo(200);
  }

  @Test
  void uncertainCompletionIsQuarantinedNeverRequeued() throws Exception {
    String s = register(c, W1, 4);
    String run = h.submit(1, "noop", "{}", null).get(0);
    pull(s, 1, 1, Bodies.newId(), 0);
    assertThat(c.post(completePath(W1, s, run), Bodies.uncertain(1, 1)).status()).isEqualTo(200);
    assertRun(run, "quarantined", 1);
    register(c, W1, 4);
    assertThat(h.cp().run(run).orElseThrow().state()).isEqualTo("quarantined");
    String s3 = register(c, W1, 4);
    assertThat(pull(s3, 3, 4, Bodies.newId(), 0).offers()).isEmpty();
  }

  @Test
  void heartbeatCarriesWorkAvailableAndCancelRuns() throws Exception {
    String s = register(c, W1, 64);
    h.clock.advance(10_000);
    assertThat(
            HeartbeatResponse.parse(
                    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 64, 64)).body())
                .workAvailable())
        .isFalse();
    h.submit(1, "noop", "{}", null);
    h.clock.advance(10_000);
    assertThat(
            HeartbeatResponse.parse(
                    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 2, 64, 64)).body())
                .workAvailable())
        .isTrue();

    // 40 leased runs with 120-character ids cancelled: at most 32 per heartbeat and within 4096
    // bytes.
    for (int i = 0; i < 40; i++) {
      h.cp()
          .submit(
              new RunSubmission(
                  1,
                  "noop",
                  "{}".getBytes(StandardCharsets.UTF_8),
                  1000,
                  null,
                  Map.of(),
                  String.format("r%03d-", i) + "x".repeat(115),
                  null,
                  0));
    }
    pull(s, 1, 64, Bodies.newId(), 0);
    for (var v : h.cp().runs()) {
      assertThat(h.cp().cancel(v.runId())).isEqualTo(ControlPlane.CancelResult.CANCEL_REQUESTED);
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int v = 3; v <= 5; v++) {
      h.clock.advance(10_000);
      WorkerClient.Res r = c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, v, 0, 64));
      assertThat(r.body().length).isLessThanOrEqualTo(4096);
      HeartbeatResponse hr = HeartbeatResponse.parse(r.body());
      assertThat(hr.cancelRuns()).isNotEmpty().hasSizeLessThanOrEqualTo(32);
      hr.cancelRuns().forEach(id -> seen.add(id.value()));
    }
    assertThat(seen).hasSize(41); // the rotation reaches every cancelled run
  }

  @Test
  void cancellingAQueuedRunRemovesItAtOnce() throws Exception {
    String s = register(c, W1, 4);
    String run = h.submit(1, "noop", "{}", null).get(0);
    assertThat(h.cp().cancel(run)).isEqualTo(ControlPlane.CancelResult.CANCELLED);
    assertThat(pull(s, 1, 1, Bodies.newId(), 0).offers()).isEmpty();
    assertThat(h.cp().run(run).orElseThrow().state()).isEqualTo("cancelled");
  }
}
