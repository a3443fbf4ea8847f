package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.SleepSpec;

/**
 * Built-in {@code sleep}: spec {@code {"ms":N}}, succeeds after N ms. Honours cancellation and the
 * timeout. Uses the context clock's shared timer: no thread per run.
 */
final class SleepExecutor implements Executor {

  @Override
  public String name() {
    return SleepSpec.EXECUTOR;
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void validate(ExecutorSpec spec) throws SpecRejectedException {
    if (!(spec instanceof SleepSpec)) {
      throw new SpecRejectedException("not a sleep spec: " + spec.getClass().getSimpleName());
    }
  }

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    return new SleepRun(context, ((SleepSpec) spec).ms());
  }
}
