package io.ql3.worker.journal;

/**
 * What the journal knows about one run attempt.
 *
 * @param childPid -1 when unknown or not started
 * @param childStartMillis -1 when unknown or not started
 * @param result null until a result is recorded (or settled without one)
 * @param settlement null until settled
 */
public record RunFact(
    JournalRecord.OfferAccepted offer,
    RunPhase phase,
    long childPid,
    long childStartMillis,
    RunResult result,
    Settlement settlement) {

  public RunKey key() {
    return offer.runKey();
  }
}
