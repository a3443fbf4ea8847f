package io.ql3.worker.runtime.metrics;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.runtime.isolation.RunUsage;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters the agent exports in the Prometheus text format (node_exporter textfile collector).
 * Updated from the cadence thread and from transport callbacks; read when the file is written.
 * Gauges (session state, slots, lease) are not kept here: they are read from their owners when the
 * file is rendered.
 *
 * <p>Every series exists from the start at 0 (every operation × result class, every outcome), so a
 * rate or an alert over it works before its first event.
 */
public final class AgentMetrics {
  private final Map<String, Map<AnswerKind, LongAdder>> requests = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> latencyMicros = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> latencyCount = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final LongAdder runCpuMicros = new LongAdder();
  private final LongAdder memoryLimitKills = new LongAdder();
  private final java.util.concurrent.atomic.AtomicLong peakMemoryMax =
      new java.util.concurrent.atomic.AtomicLong(-1);
  private volatile Map<String, Boolean> isolation = Map.of();
  private final LongAdder undeliverable = new LongAdder();

  public AgentMetrics() {
    for (Operation op : Operation.values()) {
      for (AnswerKind kind : AnswerKind.values()) {
        requests
            .computeIfAbsent(op.wireName(), k -> new ConcurrentHashMap<>())
            .put(kind, new LongAdder());
      }
      latencyMicros.put(op.wireName(), new LongAdder());
      latencyCount.put(op.wireName(), new LongAdder());
    }
    for (Outcome o : Outcome.values()) {
      outcomes.put(o.name().toLowerCase(Locale.ROOT), new LongAdder());
    }
  }

  /** One answered (or failed) request: operation wire name, its class and how long it took. */
  public void request(String operation, AnswerKind kind, long nanos) {
    requests
        .computeIfAbsent(operation, k -> new ConcurrentHashMap<>())
        .computeIfAbsent(kind, k -> new LongAdder())
        .increment();
    latencyMicros.computeIfAbsent(operation, k -> new LongAdder()).add(nanos / 1000);
    latencyCount.computeIfAbsent(operation, k -> new LongAdder()).increment();
  }

  /** A run ended with this outcome ({@code succeeded}, {@code failed}, …). */
  public void runOutcome(String outcome) {
    outcomes.computeIfAbsent(outcome.toLowerCase(Locale.ROOT), k -> new LongAdder()).increment();
  }

  /** What one process run used, from its cgroup. */
  public void runUsage(RunUsage usage) {
    usage.cpuMicros().ifPresent(runCpuMicros::add);
    if (usage.hitMemoryLimit()) {
      memoryLimitKills.increment();
    }
    usage.peakMemoryBytes().ifPresent(b -> peakMemoryMax.accumulateAndGet(b, Math::max));
  }

  /** Which isolation parts are in force ({@code user_switch}, {@code cgroup}, {@code memory}…). */
  public void isolation(Map<String, Boolean> parts) {
    isolation = Map.copyOf(parts);
  }

  /** A completion was settled as undeliverable (refused in a way no resend can change). */
  public void completionUndeliverable() {
    undeliverable.increment();
  }

  /** Appends the counters in the text exposition format. */
  void render(StringBuilder b) {
    b.append("# HELP ql3_worker_requests_total Ingress requests by operation and result class.\n");
    b.append("# TYPE ql3_worker_requests_total counter\n");
    new java.util.TreeMap<>(requests)
        .forEach(
            (op, byKind) -> {
              new java.util.TreeMap<>(byKind)
                  .forEach(
                      (kind, n) ->
                          b.append("ql3_worker_requests_total{operation=\"")
                              .append(op)
                              .append("\",result=\"")
                              .append(kind.name().toLowerCase(Locale.ROOT))
                              .append("\"} ")
                              .append(n.sum())
                              .append('\n'));
            });
    b.append(
        "# HELP ql3_worker_request_seconds Time from send to classified answer, by operation.\n");
    b.append("# TYPE ql3_worker_request_seconds summary\n");
    new java.util.TreeMap<>(latencyMicros)
        .forEach(
            (op, sum) -> {
              b.append("ql3_worker_request_seconds_sum{operation=\"")
                  .append(op)
                  .append("\"} ")
                  .append(FixedPoint.of(sum.sum(), 6))
                  .append('\n');
              b.append("ql3_worker_request_seconds_count{operation=\"")
                  .append(op)
                  .append("\"} ")
                  .append(latencyCount.get(op).sum())
                  .append('\n');
            });
    b.append("# HELP ql3_worker_runs_total Runs ended on this worker, by outcome.\n");
    b.append("# TYPE ql3_worker_runs_total counter\n");
    new java.util.TreeMap<>(outcomes)
        .forEach(
            (o, n) ->
                b.append("ql3_worker_runs_total{outcome=\"")
                    .append(o)
                    .append("\"} ")
                    .append(n.sum())
                    .append('\n'));
    b.append(
        "# HELP ql3_worker_run_cpu_seconds_total CPU time of process runs, read from their cgroups.\n");
    b.append("# TYPE ql3_worker_run_cpu_seconds_total counter\n");
    b.append("ql3_worker_run_cpu_seconds_total ")
        .append(FixedPoint.of(runCpuMicros.sum(), 6))
        .append('\n');
    b.append(
        "# HELP ql3_worker_run_memory_limit_kills_total Process runs their own memory limit killed.\n");
    b.append("# TYPE ql3_worker_run_memory_limit_kills_total counter\n");
    b.append("ql3_worker_run_memory_limit_kills_total ")
        .append(memoryLimitKills.sum())
        .append('\n');
    long peak = peakMemoryMax.get();
    if (peak >= 0) {
      b.append(
          "# HELP ql3_worker_run_memory_peak_bytes_max The highest memory.peak of any process run so far.\n");
      b.append("# TYPE ql3_worker_run_memory_peak_bytes_max gauge\n");
      b.append("ql3_worker_run_memory_peak_bytes_max ").append(peak).append('\n');
    }
    b.append("# HELP ql3_worker_isolation_active Run isolation parts in force (1) or not (0).\n");
    b.append("# TYPE ql3_worker_isolation_active gauge\n");
    new java.util.TreeMap<>(isolation)
        .forEach(
            (part, on) ->
                b.append("ql3_worker_isolation_active{part=\"")
                    .append(part)
                    .append("\"} ")
                    .append(on ? 1 : 0)
                    .append('\n'));
    b.append(
        "# HELP ql3_worker_completions_undeliverable_total Completions settled as undeliverable.\n");
    b.append("# TYPE ql3_worker_completions_undeliverable_total counter\n");
    b.append("ql3_worker_completions_undeliverable_total ")
        .append(undeliverable.sum())
        .append('\n');
  }
}
