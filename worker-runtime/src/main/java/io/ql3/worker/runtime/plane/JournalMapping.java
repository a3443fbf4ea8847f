package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.RunFact;

/**
 * The one place where the journal's types (plain, contract-free) and the contract's wire types
 * meet. A recorded result maps to exactly one {@link CompleteRequest}: rebuilding it from the
 * journal after any number of restarts gives the same canonical bytes, which is what makes a resend
 * byte-identical. Every enum mapping is an exhaustive {@code switch}: a constant added on one side
 * fails the build here, and {@code JournalContractParityTest} pins the rest (names, limits,
 * patterns).
 */
final class JournalMapping {
  private JournalMapping() {}

  static io.ql3.worker.journal.RunResult toJournal(
      Outcome outcome, Failure failure, RunResult run) {
    return new io.ql3.worker.journal.RunResult(
        toJournal(outcome),
        failure == null ? null : toJournal(failure),
        run.durationMs(),
        run.exitCode(),
        run.outputBytes(),
        run.outputTail());
  }

  static io.ql3.worker.journal.Failure toJournal(Failure f) {
    return new io.ql3.worker.journal.Failure(toJournal(f.category()), f.code(), f.message());
  }

  static io.ql3.worker.journal.FailureCategory toJournal(FailureCategory c) {
    return switch (c) {
      case TRANSIENT -> io.ql3.worker.journal.FailureCategory.TRANSIENT;
      case PERMANENT -> io.ql3.worker.journal.FailureCategory.PERMANENT;
    };
  }

  static FailureCategory toWire(io.ql3.worker.journal.FailureCategory c) {
    return switch (c) {
      case TRANSIENT -> FailureCategory.TRANSIENT;
      case PERMANENT -> FailureCategory.PERMANENT;
    };
  }

  /** How the journal records the server's answer to a completion. */
  static io.ql3.worker.journal.Disposition toJournal(Disposition d) {
    return switch (d) {
      case ACCEPTED -> io.ql3.worker.journal.Disposition.ACCEPTED;
      case DUPLICATE -> io.ql3.worker.journal.Disposition.DUPLICATE;
    };
  }

  static io.ql3.worker.journal.Outcome toJournal(Outcome o) {
    return switch (o) {
      case SUCCEEDED -> io.ql3.worker.journal.Outcome.SUCCEEDED;
      case FAILED -> io.ql3.worker.journal.Outcome.FAILED;
      case CANCELLED -> io.ql3.worker.journal.Outcome.CANCELLED;
      case UNCERTAIN -> io.ql3.worker.journal.Outcome.UNCERTAIN;
    };
  }

  static Outcome toWire(io.ql3.worker.journal.Outcome o) {
    return switch (o) {
      case SUCCEEDED -> Outcome.SUCCEEDED;
      case FAILED -> Outcome.FAILED;
      case CANCELLED -> Outcome.CANCELLED;
      case UNCERTAIN -> Outcome.UNCERTAIN;
    };
  }

  static Failure toWire(io.ql3.worker.journal.Failure f) {
    return new Failure(toWire(f.category()), f.code(), f.message());
  }

  /**
   * The completion of a run whose result is recorded, addressed to the session it was offered to.
   */
  static CompleteRequest completion(RunFact fact) {
    io.ql3.worker.journal.RunResult r = fact.result();
    if (r == null) {
      throw new IllegalStateException("no recorded result for " + fact.key());
    }
    JournalRecord.OfferAccepted offer = fact.offer();
    return new CompleteRequest(
        offer.attempt(),
        r.failure() == null ? null : toWire(r.failure()),
        offer.generation(),
        toWire(r.outcome()),
        new RunResult(r.durationMs(), r.exitCode(), r.outputBytes(), r.outputTail()));
  }
}
