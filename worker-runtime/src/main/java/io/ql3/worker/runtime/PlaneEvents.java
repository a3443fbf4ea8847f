package io.ql3.worker.runtime;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.journal.RunResult;
import io.ql3.worker.runtime.isolation.RunUsage;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import io.ql3.worker.runtime.plane.PlaneListener;
import io.ql3.worker.runtime.session.SessionCoordinator;
import java.util.OptionalLong;

/**
 * What the execution plane reports, carried out: every run and completion event is logged (a run's
 * outcome and usage, an undeliverable completion also counted in the metrics; a completion retried
 * also counts for readiness), and what an execution answer does to the session is handed to the
 * session coordinator (drift, a refusal, a long poll that cannot be recovered).
 */
final class PlaneEvents implements PlaneListener {
  private final EventLog log;
  private final AgentMetrics metrics;
  private final RunUsageBook usage;
  private final AgentReports reports;
  private final SessionCoordinator session;

  PlaneEvents(
      EventLog log,
      AgentMetrics metrics,
      RunUsageBook usage,
      AgentReports reports,
      SessionCoordinator session) {
    this.log = log;
    this.metrics = metrics;
    this.usage = usage;
    this.reports = reports;
    this.session = session;
  }

  @Override
  public void runStarted(String runId, long attempt, OptionalLong pid) {
    log.info(
        "run.started",
        "run",
        runId,
        "attempt",
        attempt,
        "pid",
        pid.isPresent() ? pid.getAsLong() : null);
  }

  @Override
  public void runFinished(String runId, long attempt, RunResult result) {
    metrics.runOutcome(result.outcome().name());
    RunUsage used = usage.take(runId, attempt);
    log.info(
        "run.finished",
        "run",
        runId,
        "attempt",
        attempt,
        "outcome",
        result.outcome(),
        "exit_code",
        result.exitCode(),
        "duration_ms",
        result.durationMs(),
        "failure",
        result.failure() == null ? null : result.failure().code(),
        "cpu_ms",
        used.cpuMicros().isPresent() ? used.cpuMicros().getAsLong() / 1000 : null,
        "peak_memory_bytes",
        used.peakMemoryBytes().isPresent() ? used.peakMemoryBytes().getAsLong() : null);
  }

  @Override
  public void offerRejected(String runId, long attempt, String why) {
    log.warn("offer.rejected", "run", runId, "attempt", attempt, "why", why);
  }

  @Override
  public void offerDeduplicated(String runId, long attempt) {
    log.info("offer.deduplicated", "run", runId, "attempt", attempt);
  }

  @Override
  public void completionDelivered(String runId, long attempt, String disposition) {
    log.info("completion.delivered", "run", runId, "attempt", attempt, "disposition", disposition);
  }

  @Override
  public void completionSuperseded(String runId, long attempt) {
    log.warn("completion.superseded", "run", runId, "attempt", attempt);
  }

  @Override
  public void completionRetry(String runId, long attempt, String why) {
    reports.ingressFailed(true);
    log.warn("completion.retry", "run", runId, "attempt", attempt, "result", why);
  }

  @Override
  public void completionRefused(String runId, long attempt, String why) {
    log.error(
        "completion.refused",
        "run",
        runId,
        "attempt",
        attempt,
        "result",
        why,
        "action",
        "kept; retried later");
  }

  @Override
  public void completionUndeliverable(String runId, long attempt, String why) {
    metrics.completionUndeliverable();
    log.error(
        "completion.undeliverable",
        "run",
        runId,
        "attempt",
        attempt,
        "result",
        why,
        "action",
        "settled as undeliverable in the journal (no resend can change this answer); the server"
            + " reclaims the run by its lease");
  }

  @Override
  public void executionDrift(Drift drift) {
    session.drifted(drift);
  }

  @Override
  public void pullOutcomeUnrecoverable(String why) {
    log.warn("pull.unrecoverable", "why", why);
    session.failClosed(why);
  }

  @Override
  public void executionAnswered(Operation op, Answer<?> answer) {
    if (answer.kind() == AnswerKind.CLIENT_BUG) {
      // Section 6: a client bug stops pulling for the rest of the session; log it loudly.
      log.error(
          "execution.refused",
          "operation",
          op.wireName(),
          "result",
          answer,
          "effect",
          "no more pulls in this session");
    } else {
      log.warn("execution.refused", "operation", op.wireName(), "result", answer);
    }
    session.executionAnswered(op, answer);
  }
}
