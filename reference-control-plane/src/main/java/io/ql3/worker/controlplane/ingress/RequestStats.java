package io.ql3.worker.controlplane.ingress;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts of answered ingress requests by operation and status (for the admin API and benchmarks). */
public final class RequestStats {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  void count(String operation, int status) {
    counts.computeIfAbsent(operation + " " + status, k -> new LongAdder()).increment();
  }

  public Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
