package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.NoopSpec;

/** Built-in {@code noop}: spec {@code {}}, succeeds at once. For demos and benchmarks. */
final class NoopExecutor implements Executor {

  @Override
  public String name() {
    return NoopSpec.EXECUTOR;
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void validate(ExecutorSpec spec) throws SpecRejectedException {
    if (!(spec instanceof NoopSpec)) {
      throw new SpecRejectedException("not a noop spec: " + spec.getClass().getSimpleName());
    }
  }

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    return new ImmediateRun(context, () -> ExecutionResult.succeeded(0));
  }
}
