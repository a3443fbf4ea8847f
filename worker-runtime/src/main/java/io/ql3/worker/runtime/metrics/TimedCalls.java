package io.ql3.worker.runtime.metrics;

import io.ql3.worker.transport.IngressResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** Counts and times ingress calls as their classified results arrive. */
public final class TimedCalls {
  private final AgentMetrics metrics;

  public TimedCalls(AgentMetrics metrics) {
    this.metrics = metrics;
  }

  public <T> CompletableFuture<IngressResult<T>> time(String operation, Supplier<CompletableFuture<IngressResult<T>>> call) {
    long start = System.nanoTime();
    CompletableFuture<IngressResult<T>> f = call.get();
    f.whenComplete((r, e) -> metrics.request(operation,
        r == null ? IngressResult.Kind.OUTCOME_UNKNOWN : r.kind(), System.nanoTime() - start));
    return f;
  }
}
