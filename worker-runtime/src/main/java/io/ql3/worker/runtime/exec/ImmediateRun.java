package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/** A run that ends the moment it is launched (noop, fail): no process, no thread, no timer. */
final class ImmediateRun implements PreparedRun, RunHandle {

  private final ExecutionContext context;
  private final Supplier<ExecutionResult> outcome;
  private final AtomicBoolean used = new AtomicBoolean();
  private final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
  private volatile Instant startedAt;

  ImmediateRun(ExecutionContext context, Supplier<ExecutionResult> outcome) {
    this.context = context;
    this.outcome = outcome;
  }

  @Override
  public RunHandle launch() {
    if (!used.compareAndSet(false, true)) {
      throw new IllegalStateException(
          "run " + context.runId() + " was already launched or discarded");
    }
    startedAt = context.clock().now();
    result.complete(
        context.cancellation().reason().map(ImmediateRun::cancelledBeforeStart).orElseGet(outcome));
    return this;
  }

  static ExecutionResult cancelledBeforeStart(Failure why) {
    return ExecutionResult.cancelled(
        Failures.of(why.category(), why.code(), why.message() + " (before the run started)"), 0);
  }

  @Override
  public void discard() {
    if (!used.compareAndSet(false, true)) {
      throw new IllegalStateException(
          "run " + context.runId() + " was already launched or discarded");
    }
  }

  @Override
  public OptionalLong pid() {
    return OptionalLong.empty();
  }

  @Override
  public Instant startedAt() {
    Instant at = startedAt;
    if (at == null) {
      throw new IllegalStateException("run " + context.runId() + " was not launched");
    }
    return at;
  }

  @Override
  public CompletableFuture<ExecutionResult> result() {
    return result.copy();
  }
}
