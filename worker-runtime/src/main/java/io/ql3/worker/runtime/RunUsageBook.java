package io.ql3.worker.runtime;

import io.ql3.worker.contract.RunId;
import io.ql3.worker.runtime.exec.RunObserver;
import io.ql3.worker.runtime.isolation.RunUsage;
import io.ql3.worker.runtime.metrics.AgentMetrics;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keeps what each process run used (from its cgroup) from the moment its executor reports it until
 * the run's {@code run.finished} line is written, and counts it in the metrics. Bounded: an entry
 * nobody takes (a run whose result was never harvested) is dropped after 1024 newer ones.
 */
final class RunUsageBook implements RunObserver {

  private static final int MAX_ENTRIES = 1024;

  private final AgentMetrics metrics;
  private final Map<String, RunUsage> pending =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RunUsage> eldest) {
          return size() > MAX_ENTRIES;
        }
      };

  RunUsageBook(AgentMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void resourcesUsed(RunId runId, long attempt, RunUsage usage) {
    metrics.runUsage(usage);
    synchronized (pending) {
      pending.put(runId.value() + "@" + attempt, usage);
    }
  }

  /** The usage of that run attempt, once; {@link RunUsage#UNKNOWN} when none was reported. */
  RunUsage take(String runId, long attempt) {
    synchronized (pending) {
      RunUsage u = pending.remove(runId + "@" + attempt);
      return u == null ? RunUsage.UNKNOWN : u;
    }
  }
}
