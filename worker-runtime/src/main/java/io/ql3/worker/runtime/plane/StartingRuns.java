package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.journal.RunResult;
import io.ql3.worker.runtime.exec.CancellationSignal;
import io.ql3.worker.runtime.exec.PreparedRun;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The offers of pull answers whose records (accepted, started or never started, reservation closed)
 * are on their way to the disk, one entry per answer, in answer order: their runs are prepared, not
 * launched. {@link OfferIntake} launches an answer's runs only once every one of its records is
 * durable.
 */
final class StartingRuns {
  private final ArrayDeque<Answer> answers = new ArrayDeque<>();

  void add(
      List<CompletableFuture<Long>> writes, List<Prepared> prepared, List<NeverStarted> never) {
    answers.addLast(new Answer(writes, prepared, never));
  }

  boolean isEmpty() {
    return answers.isEmpty();
  }

  /** The runs prepared and not launched yet. */
  int preparedCount() {
    int n = 0;
    for (Answer a : answers) {
      n += a.prepared.size();
    }
    return n;
  }

  /** True when this attempt is one of these answers' offers. */
  boolean holds(RunKey key) {
    for (Answer a : answers) {
      for (Prepared p : a.prepared) {
        if (p.accepted.runKey().equals(key)) {
          return true;
        }
      }
      for (NeverStarted n : a.never) {
        if (n.accepted.runKey().equals(key)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Cancels the prepared runs of this runId (or all, with null): they are launched cancelled. */
  void cancel(String runId, Failure reason) {
    for (Answer a : answers) {
      for (Prepared p : a.prepared) {
        if (runId == null || p.accepted.runId().equals(runId)) {
          p.cancellation.cancel(reason);
        }
      }
    }
  }

  /** True while a record of some answer is not durable yet. */
  boolean waitingForDisk() {
    for (Answer a : answers) {
      if (!a.durable()) {
        return true;
      }
    }
    return false;
  }

  /** The first answer, once all its records are durable (or refused); null otherwise. */
  Answer pollDurable() {
    Answer first = answers.peekFirst();
    return first != null && first.durable() ? answers.pollFirst() : null;
  }

  /**
   * A run prepared under its offer's cancellation signal, launched once its records are durable.
   */
  static final class Prepared {
    final JournalRecord.OfferAccepted accepted;
    final PreparedRun run;
    final CancellationSignal cancellation;

    Prepared(JournalRecord.OfferAccepted accepted, PreparedRun run, CancellationSignal signal) {
      this.accepted = accepted;
      this.run = run;
      this.cancellation = signal;
    }
  }

  /** An offer recorded with its result (refused, not prepared): delivered once durable. */
  static final class NeverStarted {
    final JournalRecord.OfferAccepted accepted;
    final RunResult result;

    NeverStarted(JournalRecord.OfferAccepted accepted, RunResult result) {
      this.accepted = accepted;
      this.result = result;
    }
  }

  /** One answer's group commit with what waits for it. */
  static final class Answer {
    final List<CompletableFuture<Long>> writes;
    final List<Prepared> prepared;
    final List<NeverStarted> never;

    private Answer(
        List<CompletableFuture<Long>> writes, List<Prepared> prepared, List<NeverStarted> never) {
      this.writes = writes;
      this.prepared = prepared;
      this.never = never;
    }

    /** Every record is durable or refused. */
    boolean durable() {
      for (CompletableFuture<Long> w : writes) {
        if (!w.isDone()) {
          return false;
        }
      }
      return true;
    }

    /** Throws if the journal failed or refused one of the records. */
    void awaitWrites() {
      for (CompletableFuture<Long> w : writes) {
        w.join();
      }
    }
  }
}
