package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.FailSpec;

/**
 * Built-in {@code fail}: spec {@code {"category":…,"code":…}}, fails at once with that failure. For
 * demos and tests of the failure paths.
 */
final class FailExecutor implements Executor {

  @Override
  public String name() {
    return FailSpec.EXECUTOR;
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void validate(ExecutorSpec spec) throws SpecRejectedException {
    if (!(spec instanceof FailSpec)) {
      throw new SpecRejectedException("not a fail spec: " + spec.getClass().getSimpleName());
    }
  }

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) {
    FailSpec fail = (FailSpec) spec;
    return new ImmediateRun(
        context,
        () ->
            ExecutionResult.failed(
                Failures.of(fail.category(), fail.code(), "failed on request (fail executor)"), 0));
  }
}
