package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.RunId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything an executor learns about one run attempt besides its spec. Built by the runtime.
 *
 * @param runId the contract's runId
 * @param attempt the attempt number, 1..2^53-1 as in the contract
 * @param idempotencyKey the offer's idempotency key (as {@link Offer#isIdempotencyKey} says): the
 *     same for every attempt of the same logical work, so the run can deduplicate its own side
 *     effects
 * @param workDirectory absolute path of the run attempt's own directory: created by the executor if
 *     missing, the base of a process's {@code cwd}; the runtime cleans it up
 * @param outputLog absolute path of the file an executor keeps the run's output in (rotated copy at
 *     {@code outputLog + ".1"}); best kept outside {@code workDirectory} so the run cannot tamper
 *     with it
 * @param timeout the offer's {@code timeoutMs}: counted from launch; when it elapses the run ends
 *     {@code failed}, transient, {@code task_timeout}
 * @param cancellation the runtime's cancel request for this run
 * @param clock time and timers
 */
public record ExecutionContext(
    RunId runId,
    long attempt,
    String idempotencyKey,
    Path workDirectory,
    Path outputLog,
    Duration timeout,
    CancellationSignal cancellation,
    ExecutionClock clock) {

  private static final long MAX_ATTEMPT = (1L << 53) - 1;

  public ExecutionContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(workDirectory, "workDirectory");
    Objects.requireNonNull(outputLog, "outputLog");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(cancellation, "cancellation");
    Objects.requireNonNull(clock, "clock");
    if (attempt < 1 || attempt > MAX_ATTEMPT) {
      throw new IllegalArgumentException("attempt must be in 1..2^53-1: " + attempt);
    }
    if (!Offer.isIdempotencyKey(idempotencyKey)) {
      throw new IllegalArgumentException(
          "idempotencyKey must be 1.."
              + Offer.MAX_IDEMPOTENCY_KEY
              + " printable ASCII characters (U+0020..U+007E)");
    }
    if (!workDirectory.isAbsolute() || !outputLog.isAbsolute()) {
      throw new IllegalArgumentException("workDirectory and outputLog must be absolute paths");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
  }
}
