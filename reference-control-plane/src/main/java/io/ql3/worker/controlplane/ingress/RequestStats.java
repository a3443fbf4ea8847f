package io.ql3.worker.controlplane.ingress;

import io.ql3.worker.contract.Operation;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of answered ingress requests by operation and status (for the admin API and benchmarks).
 * The common case (a 200 of a known operation) is one array slot: no key is built per request.
 */
public final class RequestStats {
  private static final Operation[] OPERATIONS = Operation.values();

  private final LongAdder[] ok = new LongAdder[OPERATIONS.length];
  private final Map<String, LongAdder> others = new ConcurrentHashMap<>();

  public RequestStats() {
    for (int i = 0; i < ok.length; i++) {
      ok[i] = new LongAdder();
    }
  }

  /** {@code operation} null: the path named no operation. */
  void count(Operation operation, int status) {
    if (operation != null && status == 200) {
      ok[operation.ordinal()].increment();
      return;
    }
    String name = operation == null ? "unknown" : operation.wireName();
    others.computeIfAbsent(name + " " + status, k -> new LongAdder()).increment();
  }

  public Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    for (int i = 0; i < ok.length; i++) {
      long n = ok[i].sum();
      if (n > 0) {
        out.put(OPERATIONS[i].wireName() + " 200", n);
      }
    }
    others.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
