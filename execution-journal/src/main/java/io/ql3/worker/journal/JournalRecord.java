package io.ql3.worker.journal;

import java.util.Objects;

/**
 * Everything the journal can record. Identifiers are plain strings (the runtime maps them to wire
 * types). Credentials and tokens have no field here, by design: they never enter the journal.
 */
public sealed interface JournalRecord {

  /** Run attempt key, or null for records that are not about one run. */
  default RunKey runKey() {
    return null;
  }

  /** A new session was registered; its generation is greater than any held before. */
  record SessionRegistered(String sessionId, long generation) implements JournalRecord {
    public SessionRegistered {
      Checks.id("sessionId", sessionId, 64);
      Checks.positive("generation", generation);
    }
  }

  /** A pull is about to be sent: its slots are reserved until {@link PullClosed}. */
  record PullReserved(String pullId, int maxRuns) implements JournalRecord {
    public PullReserved {
      Checks.id("pullId", pullId, 64);
      Checks.positive("maxRuns", maxRuns);
    }
  }

  /** The pull's answer was handled (its offers, if any, are recorded as accepted). */
  record PullClosed(String pullId) implements JournalRecord {
    public PullClosed {
      Checks.id("pullId", pullId, 64);
    }
  }

  /** An offer is accepted: durable before the execution plane acts on it. */
  record OfferAccepted(
      String runId,
      long attempt,
      String sessionId,
      long generation,
      String executor,
      String specDigest,
      String idempotencyKey,
      long timeoutMs)
      implements JournalRecord {
    public static final int MAX_EXECUTOR = 32;
    public static final int MAX_SPEC_DIGEST = 80;

    /** What a rejected offer's executor name or spec digest is recorded as when unrecordable. */
    public static final String UNRECORDABLE = "-";

    public OfferAccepted {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
      Checks.id("sessionId", sessionId, 64);
      Checks.positive("generation", generation);
      Checks.id("executor", executor, MAX_EXECUTOR);
      Checks.id("specDigest", specDigest, MAX_SPEC_DIGEST);
      Checks.id("idempotencyKey", idempotencyKey, 128);
      Checks.positive("timeoutMs", timeoutMs);
    }

    /**
     * {@code value} when this record can hold it as an executor name or spec digest ({@code
     * maxChars} printable ASCII), else {@value #UNRECORDABLE}. For an offer completed {@code
     * offer_rejected} without running: the wire lets these be any string, and breaking their rules
     * is what rejects it, so the rejection is always journaled (and the run completed).
     */
    public static String recordable(String value, int maxChars) {
      return Checks.isId(value, maxChars) ? value : UNRECORDABLE;
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }

  /**
   * The run is about to start: durable BEFORE the process is launched. {@code childPid} and {@code
   * childStartMillis} are -1 when the executor has no child process (they can be recorded before
   * launch only when known; otherwise the runtime records them as -1).
   */
  record RunStarted(String runId, long attempt, long childPid, long childStartMillis)
      implements JournalRecord {
    public RunStarted {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
      if (childPid < -1 || childStartMillis < -1) {
        throw new IllegalArgumentException("childPid/childStartMillis must be >= -1");
      }
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }

  /** The result is durable before the completion is sent. */
  record ResultRecorded(String runId, long attempt, RunResult result) implements JournalRecord {
    public ResultRecorded {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
      Objects.requireNonNull(result, "result");
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }

  /** The server answered the completion (nothing waits for it to be durable). */
  record CompletionAcknowledged(String runId, long attempt, Disposition disposition)
      implements JournalRecord {
    public CompletionAcknowledged {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
      Objects.requireNonNull(disposition, "disposition");
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }

  /** The attempt is no longer leased to us (complete answered 409 run_not_leased). */
  record Superseded(String runId, long attempt) implements JournalRecord {
    public Superseded {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }

  /** Shutdown began: the session went active to draining. */
  record DrainBegun(String sessionId, long generation) implements JournalRecord {
    public DrainBegun {
      Checks.id("sessionId", sessionId, 64);
      Checks.positive("generation", generation);
    }
  }

  /** The session is offline; allowed only when every run is settled. */
  record Offline(String sessionId, long generation) implements JournalRecord {
    public Offline {
      Checks.id("sessionId", sessionId, 64);
      Checks.positive("generation", generation);
    }
  }

  /** An operator settled a live run on purpose (for example an uncertain run handled by hand). */
  record OperatorResolved(String runId, long attempt, String note) implements JournalRecord {
    public OperatorResolved {
      Checks.id("runId", runId, 128);
      Checks.positive("attempt", attempt);
      Checks.text("note", note, 1024);
    }

    @Override
    public RunKey runKey() {
      return new RunKey(runId, attempt);
    }
  }
}
