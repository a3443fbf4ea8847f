package io.ql3.worker.journal;

import static io.ql3.worker.journal.Fixtures.SESSION;
import static io.ql3.worker.journal.Fixtures.WORKER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The incremental facts (the settled window kept as immutable snapshots with an index, see {@link
 * SettledWindow}) equal a plain model of the window (a list the test keeps: a settled fact
 * appended, the oldest dropped while over the count or the output-tail budget) after every record,
 * and every snapshot taken on the way, however stale, keeps its content and answers {@link
 * JournalFacts#recentCompletion} exactly like a scan of that content: including attempts evicted
 * (by count or by the output-tail budget) and accepted again (the index then points past an old
 * snapshot's range).
 */
class SettledWindowProperties {

  @Property(tries = 100)
  void incrementalFactsEqualAModelOfTheWindow(
      @ForAll @IntRange(min = 0, max = 12) int windowSize,
      @ForAll @IntRange(min = 1, max = 24) int keys,
      @ForAll @IntRange(min = 1, max = 300) int steps,
      @ForAll @IntRange(min = 0, max = 40) int tailBudget,
      @ForAll long seed) {
    Random random = new Random(seed);
    int budget = tailBudget == 40 ? Integer.MAX_VALUE : tailBudget;
    JournalState state = new JournalState(WORKER, windowSize, budget);
    long seq = 0;
    state.apply(new JournalRecord.SessionRegistered(SESSION, 1), ++seq);
    List<JournalFacts> snapshots = new ArrayList<>();
    List<List<RunFact>> contents = new ArrayList<>();
    List<RunKey> allKeys = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      allKeys.add(new RunKey("r" + k, 1 + k % 2));
    }
    List<RunFact> model = new ArrayList<>();
    for (int step = 0; step < steps; step++) {
      RunKey key = allKeys.get(random.nextInt(keys));
      if (inModel(model, key) && random.nextInt(4) == 0) {
        // Accepted again while its settled fact is in the window: refused, nothing changes.
        JournalFacts was = state.facts(null);
        JournalRecord again = offer(key);
        long refusedSeq = seq + 1;
        assertThatThrownBy(() -> state.apply(again, refusedSeq))
            .isInstanceOf(JournalStateException.class)
            .hasMessageContaining("never run twice");
        assertThat(state.facts(null)).isSameAs(was);
      }
      JournalRecord next = nextRecord(state, model, key, random);
      if (next != null) {
        JournalState.Run before = state.liveView().get(key);
        RunFact settledAs = before == null ? null : settledFact(before, next);
        state.apply(next, ++seq);
        if (settledAs != null) {
          model.add(settledAs);
          while (model.size() > windowSize || (model.size() > 1 && tailSum(model) > budget)) {
            model.remove(0);
          }
        }
      }
      JournalFacts facts = state.facts(null);
      assertThat(facts.settled()).containsExactlyElementsOf(model);
      assertThat(facts.settled()).hasSizeLessThanOrEqualTo(windowSize);
      if (facts.settled().size() > 1) {
        assertThat(tailSum(facts.settled()))
            .as("the window's tails against its budget")
            .isLessThanOrEqualTo(budget);
      }
      if (random.nextInt(4) == 0) {
        snapshots.add(facts);
        contents.add(List.copyOf(facts.settled()));
      }
      // Every snapshot so far: same content, and lookups equal a scan of that content.
      for (int i = 0; i < snapshots.size(); i++) {
        JournalFacts s = snapshots.get(i);
        assertThat(s.settled()).containsExactlyElementsOf(contents.get(i));
        JournalFacts scanned =
            new JournalFacts(
                s.workerId(),
                s.lastSeq(),
                s.session(),
                s.accepted(),
                s.running(),
                s.pendingCompletions(),
                new ArrayList<>(contents.get(i)),
                s.openPulls(),
                s.recoveryRequired());
        for (RunKey k : allKeys) {
          assertThat(s.recentCompletion(k.runId(), k.attempt()))
              .isEqualTo(scanned.recentCompletion(k.runId(), k.attempt()));
        }
        assertThat(s.recentCompletion("never", 1)).isEqualTo(Optional.empty());
      }
      if (snapshots.size() > 12) {
        snapshots.remove(0);
        contents.remove(0);
      }
    }
  }

  /**
   * The fact a live run has once this record applied, when the record settles it (built by the test
   * from the record's kind), else null.
   */
  private static RunFact settledFact(JournalState.Run run, JournalRecord record) {
    Settlement settlement;
    if (record instanceof JournalRecord.CompletionAcknowledged a) {
      settlement =
          switch (a.disposition()) {
            case ACCEPTED -> Settlement.ACKNOWLEDGED;
            case DUPLICATE -> Settlement.DUPLICATE;
            case UNDELIVERABLE -> Settlement.UNDELIVERABLE;
          };
    } else if (record instanceof JournalRecord.Superseded) {
      settlement = Settlement.SUPERSEDED;
    } else if (record instanceof JournalRecord.OperatorResolved) {
      settlement = Settlement.OPERATOR_RESOLVED;
    } else {
      return null; // RunStarted, ResultRecorded: still live
    }
    return new RunFact(
        run.offer, RunPhase.SETTLED, run.childPid, run.childStartMillis, run.result, settlement);
  }

  private static boolean inModel(List<RunFact> model, RunKey key) {
    for (RunFact f : model) {
      if (f.key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  private static JournalRecord.OfferAccepted offer(RunKey key) {
    return new JournalRecord.OfferAccepted(
        key.runId(),
        key.attempt(),
        SESSION,
        1,
        "noop",
        "sha256:" + "ab".repeat(32),
        "idem-" + key.runId(),
        60_000);
  }

  private static long tailSum(List<RunFact> facts) {
    long sum = 0;
    for (RunFact f : facts) {
      sum += tailChars(f);
    }
    return sum;
  }

  /** A record allowed now for this attempt (its next phase, or a new acceptance), or null. */
  private static JournalRecord nextRecord(
      JournalState state, List<RunFact> model, RunKey key, Random random) {
    Map<RunKey, JournalState.Run> live = state.liveView();
    JournalState.Run run = live.get(key);
    String id = key.runId();
    long attempt = key.attempt();
    if (run == null) {
      return inModel(model, key) ? null : offer(key); // in the window: never accepted twice
    }
    return switch (run.phase) {
      case ACCEPTED ->
          random.nextBoolean()
              ? new JournalRecord.RunStarted(id, attempt, 42, 1_700_000_000_000L)
              : new JournalRecord.ResultRecorded(id, attempt, result(random));
      case STARTED -> new JournalRecord.ResultRecorded(id, attempt, result(random));
      case RESULT_RECORDED ->
          switch (random.nextInt(6)) {
            case 0 -> new JournalRecord.Superseded(id, attempt);
            case 1 -> new JournalRecord.CompletionAcknowledged(id, attempt, Disposition.DUPLICATE);
            case 2 ->
                new JournalRecord.CompletionAcknowledged(id, attempt, Disposition.UNDELIVERABLE);
            case 3 -> new JournalRecord.OperatorResolved(id, attempt, "resolved by hand");
            default -> new JournalRecord.CompletionAcknowledged(id, attempt, Disposition.ACCEPTED);
          };
      case SETTLED -> throw new IllegalStateException("settled run in the live set");
    };
  }

  private static RunResult result(Random random) {
    return new RunResult(
        Outcome.SUCCEEDED,
        null,
        random.nextInt(100),
        0,
        random.nextInt(1000),
        "o".repeat(random.nextInt(12)));
  }

  private static long tailChars(RunFact f) {
    return f.result() == null ? 0 : f.result().outputTail().length();
  }

  /**
   * A restored snapshot that settles one attempt twice (never written by the journal, which settles
   * an attempt once) keeps it once, in its first place, with the later fact and its tail counted.
   */
  @Example
  void aSettledAttemptRestoredTwiceTakesItsFirstPlaceWithTheLaterFact() {
    JournalState state = new JournalState(WORKER, 3, 10);
    RunFact a = settled("a", "aaaa");
    RunFact b = settled("b", "bbbb");
    RunFact a2 = settled("a", "a");
    state.restoreRun(a);
    state.restoreRun(b);
    state.restoreRun(a2);
    assertThat(state.facts(null).settled()).containsExactly(a2, b);
    assertThat(state.runCount()).isEqualTo(2);
    // The tails are 1 + 4 now: a third fact of 5 characters fits the budget of 10 (with a's 4
    // still counted it would evict the oldest).
    RunFact c = settled("c", "ccccc");
    state.restoreRun(c);
    assertThat(state.facts(null).settled()).containsExactly(a2, b, c);
  }

  private static RunFact settled(String id, String tail) {
    return new RunFact(
        new JournalRecord.OfferAccepted(
            id, 1, SESSION, 1, "noop", "sha256:" + "ab".repeat(32), "k-" + id, 1_000),
        RunPhase.SETTLED,
        -1,
        -1,
        new RunResult(Outcome.SUCCEEDED, null, 0, 0, tail.length(), tail),
        Settlement.ACKNOWLEDGED);
  }

  @Property(tries = 50)
  void aLongRunKeepsTheWindowBoundedAndLookupsExact(
      @ForAll @IntRange(min = 1, max = 64) int windowSize, @ForAll long seed) {
    Random random = new Random(seed);
    JournalState state = new JournalState(WORKER, windowSize);
    long seq = 0;
    state.apply(new JournalRecord.SessionRegistered(SESSION, 1), ++seq);
    Map<RunKey, Boolean> expectedWindow = new LinkedHashMap<>();
    for (int i = 0; i < 20 * windowSize + 50; i++) {
      String id = "run-" + i;
      state.apply(
          new JournalRecord.OfferAccepted(
              id, 1, SESSION, 1, "noop", "sha256:" + "cd".repeat(32), "k" + i, 1_000),
          ++seq);
      state.apply(new JournalRecord.ResultRecorded(id, 1, result(random)), ++seq);
      state.apply(new JournalRecord.CompletionAcknowledged(id, 1, Disposition.ACCEPTED), ++seq);
      expectedWindow.put(new RunKey(id, 1), true);
      while (expectedWindow.size() > windowSize) {
        expectedWindow.remove(expectedWindow.keySet().iterator().next());
      }
      JournalFacts f = state.facts(null);
      assertThat(f.settled())
          .extracting(RunFact::key)
          .containsExactlyElementsOf(expectedWindow.keySet());
      int probe = random.nextInt(i + 1);
      RunKey k = new RunKey("run-" + probe, 1);
      assertThat(f.recentCompletion(k.runId(), 1).isPresent())
          .isEqualTo(expectedWindow.containsKey(k));
    }
  }

  /**
   * Windows larger than the index's trail: snapshots more than TRAIL evictions old scan, and agree.
   */
  @Property(tries = 20)
  void staleSnapshotsOfALargeWindowStayExact(
      @ForAll @IntRange(min = 65, max = 200) int windowSize, @ForAll long seed) {
    Random random = new Random(seed);
    JournalState state = new JournalState(WORKER, windowSize);
    long seq = 0;
    state.apply(new JournalRecord.SessionRegistered(SESSION, 1), ++seq);
    List<JournalFacts> snapshots = new ArrayList<>();
    List<List<RunFact>> contents = new ArrayList<>();
    int runs = 4 * windowSize + 3 * SettledWindow.TRAIL;
    for (int i = 0; i < runs; i++) {
      String id = "run-" + (i % (2 * windowSize)); // attempts come back once evicted
      long attempt = 1 + (i / (2 * windowSize));
      state.apply(
          new JournalRecord.OfferAccepted(
              id, attempt, SESSION, 1, "noop", "sha256:" + "ef".repeat(32), "k" + i, 1_000),
          ++seq);
      state.apply(new JournalRecord.ResultRecorded(id, attempt, result(random)), ++seq);
      state.apply(
          new JournalRecord.CompletionAcknowledged(id, attempt, Disposition.ACCEPTED), ++seq);
      if (i % 37 == 0) {
        JournalFacts f = state.facts(null);
        snapshots.add(f);
        contents.add(List.copyOf(f.settled()));
      }
    }
    for (int s = 0; s < snapshots.size(); s++) {
      JournalFacts snap = snapshots.get(s);
      assertThat(snap.settled()).containsExactlyElementsOf(contents.get(s));
      for (int probe = 0; probe < 40; probe++) {
        String id = "run-" + random.nextInt(2 * windowSize);
        long attempt = 1 + random.nextInt(3);
        Optional<RunFact> expected =
            contents.get(s).stream()
                .filter(f -> f.key().equals(new RunKey(id, attempt)))
                .findFirst();
        assertThat(snap.recentCompletion(id, attempt)).isEqualTo(expected);
      }
    }
  }
}
