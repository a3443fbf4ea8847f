package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.Settlement;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slot is free in the capacity oracle's eyes only once the acknowledgement of its run's
 * completion is durable, and that acknowledgement rides a group commit after the step that
 * harvested the answer. A pull that found no free slot for that reason must be tried again as soon
 * as the acknowledgement is durable: nothing else wakes the cadence then, and waiting for the next
 * period stalled a busy node agent 250 ms at a time.
 *
 * <p>Real TLS 1.3 to the reference control plane, a real journal on disk. The free-slot count is
 * the seam: the test answers 0 for the step that harvests the completion's answer, which is what
 * the oracle answers while the acknowledgement is still on its way to the disk (the journal's
 * writer cannot be held from this module, so the real race is not reproduced on demand).
 */
class SlotFreedBySettlementTest {
  @TempDir Path dir;
  PlaneHarness h;
  SessionLease lease;

  @BeforeEach
  void start() throws Exception {
    h = PlaneHarness.withCountingExecutor(dir);
    lease = h.registerNew(3);
  }

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aPullBlockedOnlyBySlotsIsWokenWhenTheAcknowledgementThatFreesOneIsDurable()
      throws Exception {
    String run = h.submit("counting", null);
    h.tick(lease); // the first long poll
    h.freeSlots = 0; // from here on the one slot is held
    h.answer(lease); // the offer: accepted and launched
    assertThat(h.events).contains("started " + run + " 1");
    h.answer(lease); // the run finished: result recorded, completion sent
    assertThat(h.wakes.tryAcquire(10, TimeUnit.SECONDS)).as("the completion's answer").isTrue();
    h.tick(lease); // harvests it: the acknowledgement is queued, no slot is free yet
    assertThat(h.events).contains("delivered " + run + " 1 accepted");
    assertThat(h.ingress.calls.stream().filter(c -> c.startsWith("longPoll"))).hasSize(1);

    assertThat(h.wakes.tryAcquire(10, TimeUnit.SECONDS))
        .as("the cadence is woken once the acknowledgement is durable")
        .isTrue();
    assertThat(h.journal.facts().recentCompletion(run, 1).orElseThrow().settlement())
        .isEqualTo(Settlement.ACKNOWLEDGED);
    h.tick(lease); // still no slot (as the test says): the settlement is watched once, no loop
    assertThat(h.wakes.tryAcquire(300, TimeUnit.MILLISECONDS))
        .as("no second wake for the same settlement")
        .isFalse();
    h.freeSlots = 1; // what the oracle now reads from the durable facts
    h.tick(lease);
    assertThat(h.ingress.calls.stream().filter(c -> c.startsWith("longPoll"))).hasSize(2);
  }
}
