package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the execution plane does with the work it holds when a request is suspended or refused: an
 * outcome-unknown pull survives a suspension, a drifting or refused completion is neither lost nor
 * resent forever. Against the real reference control plane (h2), the real transport and the real
 * journal; the plane is driven by hand with the permit the session coordinator would give.
 */
class PlaneHeldWorkTest {
  @TempDir Path dir;
  PlaneHarness h;
  SessionLease lease;

  @BeforeEach
  void start() throws Exception {
    h = PlaneHarness.withCountingExecutor(dir);
    lease = h.registerNew(1);
  }

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  /**
   * A merely suspended session (credentials refused: no permit, session not ended) keeps its
   * outcome-unknown pull, and once active again resends the SAME pullId, so the server replays the
   * offer it leased; the run executes exactly once.
   */
  @Test
  void aSuspendedSessionKeepsItsOutcomeUnknownPullAndResendsTheSamePullId() throws Exception {
    String run = h.submit("counting", null);
    h.cp.faults().add("pull", Fault.Action.DROP_AFTER_APPLY, 0, null, 0, 0, 1);
    h.tick(lease);
    assertThat(h.wakes.tryAcquire(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    // Suspended: the coordinator gives no permit, and the session has not ended.
    h.plane.tick(h.now, Optional.empty(), false);
    assertThat(h.plane.pullOutstanding()).as("the outcome-unknown pull is kept").isTrue();
    assertThat(h.journal.facts().openPulls()).hasSize(1);

    h.advance(1_000);
    h.plane.tick(h.now, Optional.empty(), false);
    assertThat(h.ingress.calls).as("nothing is sent while suspended").hasSize(1);

    h.tick(lease); // active again: the identical resend
    h.answer(
        lease); // the replayed offer is accepted and launched (and the next long poll goes out)
    assertThat(h.ingress.calls.size()).isGreaterThanOrEqualTo(2);
    assertThat(h.ingress.calls.get(1))
        .as("same pullId, same bytes")
        .isEqualTo(h.ingress.calls.get(0));
    PlaneHarnessAwait.until(
        "the run is delivered",
        () -> {
          h.tick(lease);
          return h.events.contains("delivered " + run + " 1 accepted");
        });
    assertThat(CountingExecutor.PREPARED).containsExactly(run + " 1");
    assertThat(h.cp.controlPlane().run(run).orElseThrow().state()).isEqualTo("completed");
    assertThat(h.cp.auditor().violations()).isEmpty();
  }

  /**
   * A completion answered with a status outside the contract (a drift) is reported to the session,
   * which fails closed (section 6); the result itself is kept and delivered later.
   */
  @Test
  void aDriftingCompletionIsReportedSoPullingStopsAndIsDeliveredLater() throws Exception {
    String run = h.submit("counting", null);
    h.cp.faults().add("complete", Fault.Action.ERROR, 418, null, 0, 0, 1);
    h.tick(lease);
    PlaneHarnessAwait.until(
        "the completion drifts once and then is delivered",
        () -> {
          h.advance(1_000);
          h.tick(lease);
          return h.events.contains("delivered " + run + " 1 accepted");
        });
    assertThat(h.events).containsSubsequence("refused DRIFT", "delivered " + run + " 1 accepted");
    assertThat(CountingExecutor.PREPARED).containsExactly(run + " 1");
  }

  /**
   * A completion refused 400 (a client bug) cannot succeed by resending: it is settled as
   * undeliverable in the journal (section 6 clarifications), the session stops pulling, and nothing
   * is left to hold a drain or the next register.
   */
  @Test
  void aCompletionRefusedAsAClientBugIsSettledUndeliverable() throws Exception {
    String run = h.submit("counting", null);
    h.cp.faults().add("complete", Fault.Action.ERROR, 400, "contract_violation", 0, 0, 1);
    h.tick(lease);
    PlaneHarnessAwait.until(
        "the completion is settled undeliverable",
        () -> {
          h.advance(1_000);
          h.tick(lease);
          return h.events.contains("undeliverable " + run + " 1");
        });
    assertThat(h.events).contains("refused CLIENT_BUG");
    assertThat(h.ingress.calls.stream().filter(c -> c.startsWith("complete " + run))).hasSize(1);
    assertThat(h.plane.runCounts().pendingCompletions()).isZero();
    PlaneHarnessAwait.until(
        "the journal records it settled undeliverable",
        () ->
            h.journal.facts().recentCompletion(run, 1).map(f -> f.settlement()).orElse(null)
                == io.ql3.worker.journal.Settlement.UNDELIVERABLE);
  }
}
