package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dedup of a re-offered completed run (issue 6, execution plane): an offer whose runId+attempt the
 * journal already completed is answered from the journal, never executed again. A faithful server
 * never re-offers a completed attempt (a reclaim bumps the attempt), so the situation is made with
 * a real one that lost its memory: the run executes and completes under a first session; the
 * control plane restarts empty and is given a run with the same runId, which it offers as attempt 1
 * again. The journal is the real one (files, fsync); the transport, TLS 1.3 and the server are
 * real. The recorded completion is resent with the same bytes to the session it was recorded for
 * (which the restarted server does not know: {@code run_not_leased}, settled as superseded), and
 * the executor is not invoked a second time.
 */
class CompletedOfferDedupTest {
  static final String RUN = "dedup-run-1";

  @TempDir Path dir;
  PlaneHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void anOfferOfAnAttemptTheJournalCompletedIsAnsweredFromTheJournalWithoutRunningAgain()
      throws Exception {
    h = PlaneHarness.withCountingExecutor(dir);
    SessionLease first = h.registerNew(1);
    h.submit("counting", RUN);
    h.tick(first);
    // The offer is executed; no further pull (no permit): a long poll parked on the server that is
    // about to stop would hold the connection (after its GOAWAY) until that stream ends.
    h.answer(null);
    PlaneHarnessAwait.until(
        "the run is delivered",
        () -> {
          h.tick(null);
          return h.events.contains("delivered " + RUN + " 1 accepted");
        });
    assertThat(h.plane.pullOutstanding()).isFalse();
    assertThat(CountingExecutor.PREPARED).containsExactly(RUN + " 1");
    assertThat(h.journal.facts().recentCompletion(RUN, 1)).isPresent();
    byte[] recorded = h.ingress.completions.get(0);

    h.restartServer();
    // A server restored from a backup: it remembers the worker's generation, not the completion.
    h.cp.controlPlane().seedGeneration(PlaneHarness.WORKER, 1);
    SessionLease second = h.registerNew(2);
    assertThat(second.sessionId()).isNotEqualTo(first.sessionId());
    h.submit("counting", RUN); // the restarted server offers runId+attempt 1 again
    h.tick(second);
    PlaneHarnessAwait.until(
        "the re-offer is answered from the journal",
        () -> {
          h.tick(second);
          return h.ingress.completions.size() == 2 && h.plane.runCounts().pendingCompletions() == 0;
        });

    assertThat(h.events).contains("deduplicated " + RUN + " 1");
    assertThat(CountingExecutor.PREPARED).as("never executed again").containsExactly(RUN + " 1");
    assertThat(h.ingress.completions.get(1))
        .as("the recorded completion, byte for byte")
        .isEqualTo(recorded);
    assertThat(h.ingress.calls)
        .filteredOn(c -> c.startsWith("complete "))
        .containsExactly(
            "complete " + RUN + " 1 session " + first.sessionId().value(),
            "complete " + RUN + " 1 session " + first.sessionId().value());
    assertThat(h.journal.facts().running()).isEmpty();
    assertThat(h.journal.facts().accepted()).isEmpty();

    // Durable: the fact that answered the re-offer survives a reopen of the journal files.
    h.closeJournal();
    try (Journal reopened =
        Journal.open(JournalConfig.of(dir.resolve("journal"), PlaneHarness.WORKER))) {
      assertThat(reopened.facts().recentCompletion(RUN, 1)).isPresent();
      assertThat(reopened.facts().pendingCompletions()).isEmpty();
    }
  }
}
