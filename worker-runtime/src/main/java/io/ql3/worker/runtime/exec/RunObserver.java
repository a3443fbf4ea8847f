package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.RunId;
import io.ql3.worker.runtime.isolation.RunUsage;

/** Hears what each process run used, just before its result completes (for logs and metrics). */
public interface RunObserver {

  RunObserver NONE = (runId, attempt, usage) -> {};

  void resourcesUsed(RunId runId, long attempt, RunUsage usage);
}
