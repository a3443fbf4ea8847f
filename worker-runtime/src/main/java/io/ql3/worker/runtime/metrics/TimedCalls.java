package io.ql3.worker.runtime.metrics;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.transport.IngressResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Counts and times ingress calls as their classified results arrive, and hands them on as {@link
 * Answer}s.
 */
public final class TimedCalls {
  private final AgentMetrics metrics;

  public TimedCalls(AgentMetrics metrics) {
    this.metrics = metrics;
  }

  public <T> CompletableFuture<Answer<T>> time(
      String operation, Supplier<CompletableFuture<IngressResult<T>>> call) {
    long start = System.nanoTime();
    CompletableFuture<IngressResult<T>> f = call.get();
    f.whenComplete(
        (r, e) ->
            metrics.request(
                operation,
                r == null ? AnswerKind.OUTCOME_UNKNOWN : r.kind(),
                System.nanoTime() - start));
    return f.thenApply(IngressResult::answer);
  }
}
