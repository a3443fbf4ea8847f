package io.ql3.worker.runtime.plane;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.journal.RunResult;
import java.util.OptionalLong;

/** Events of the execution plane, on the cadence thread (for logs, metrics and the session). */
public interface PlaneListener {
  default void runStarted(String runId, long attempt, OptionalLong pid) {}

  default void runFinished(String runId, long attempt, RunResult result) {}

  default void offerRejected(String runId, long attempt, String why) {}

  default void offerDeduplicated(String runId, long attempt) {}

  default void completionDelivered(String runId, long attempt, String disposition) {}

  default void completionSuperseded(String runId, long attempt) {}

  default void completionRetry(String runId, long attempt, String why) {}

  /**
   * A completion answer that is neither success nor retryable by nature (credentials, drift); it is
   * retried.
   */
  default void completionRefused(String runId, long attempt, String why) {}

  /**
   * A completion refused in a way no resend can change (400, 413, 404, 405, a 409 session code):
   * recorded settled as undeliverable; the server reclaims the run by its lease.
   */
  default void completionUndeliverable(String runId, long attempt, String why) {}

  /** A pull or complete answer drifted: the session must be treated as fenced (section 6). */
  default void executionDrift(Drift drift) {}

  /**
   * The answer of a long poll sent on h2 was lost and its identical resend could only go out on
   * http/1.1, where it would block the one connection (contract section 1): the pull is given up
   * and the session must end, so that the server reclaims whatever that answer leased. Called only
   * once no run of the session is running or waiting for delivery.
   */
  default void pullOutcomeUnrecoverable(String why) {}

  /**
   * A pull or complete answer that may concern the session (fenced, credentials, client bug,
   * drift): the session applies its row of the reaction table (stop pulling at once).
   */
  default void executionAnswered(Operation op, Answer<?> answer) {}
}
