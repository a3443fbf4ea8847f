package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.capacity.CapacityLimits;
import io.ql3.worker.capacity.CapacityOracle;
import io.ql3.worker.capacity.LifecyclePhase;
import io.ql3.worker.journal.Settlement;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run holds its slot until the settlement of its completion is durable. A pull held back only by
 * such slots is reserved in the step that harvested the answers, behind the settlements and in the
 * same journal entry: its reservation becomes durable only with them, and the pull leaves only
 * then. Waiting for the settlements' own force first put one more force between a completion and
 * the next pull.
 *
 * <p>Real TLS 1.3 to the reference control plane, a real journal on disk, the real capacity oracle
 * with one slot.
 */
class PullBehindSettlementsTest {
  @TempDir Path dir;
  PlaneHarness h;
  SessionLease lease;

  @BeforeEach
  void start() throws Exception {
    h = PlaneHarness.withCountingExecutor(dir);
    lease = h.registerNew(3);
    CapacityOracle oracle = new CapacityOracle(CapacityLimits.of(1), h.journal);
    h.slots = ahead -> oracle.compute(LifecyclePhase.ACTIVE, ahead).availableSlots();
  }

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aPullHeldBackOnlyBySlotsBeingSettledIsReservedBehindTheirSettlementsInTheSameStep()
      throws Exception {
    String run = h.submit("counting", null);
    h.tick(lease); // reserves the one slot, then sends the first long poll
    PlaneHarnessAwait.until(
        "the run is done and its completion sent",
        () -> {
          h.tick(lease);
          return !h.ingress.completions.isEmpty();
        });
    assertThat(h.events).contains("started " + run + " 1");
    assertThat(h.ingress.calls.stream().filter(c -> c.startsWith("longPoll"))).hasSize(1);
    PlaneHarnessAwait.until(
        "the completion's answer arrives", () -> h.ingress.completionAnswers.get(0).isDone());

    h.tick(lease); // harvests it: acknowledgement queued, reservation behind it, then the pull

    assertThat(h.events).contains("delivered " + run + " 1 accepted");
    assertThat(h.ingress.calls.stream().filter(c -> c.startsWith("longPoll")))
        .as("the next pull went out without waiting for another wake")
        .hasSize(2);
    assertThat(h.journal.facts().recentCompletion(run, 1).orElseThrow().settlement())
        .isEqualTo(Settlement.ACKNOWLEDGED);
    assertThat(h.journal.facts().openPulls()).hasSize(1);
  }
}
