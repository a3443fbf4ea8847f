package io.ql3.worker.controlplane.state;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance auditor's record: the client contract violations the server observed. Callers
 * decide what happened (they own the facts); the auditor only keeps the list (bounded, with exact
 * counts) and logs each entry. Thread-safe on its own monitor.
 */
public final class Auditor {
  private static final int KEPT = 10_000;

  private final Clock clock;
  private final EventLog log;
  private final ArrayDeque<Violation> kept = new ArrayDeque<>();
  private final Map<ViolationKind, Long> counts = new EnumMap<>(ViolationKind.class);
  private long seq;

  public Auditor(Clock clock, EventLog log) {
    this.clock = clock;
    this.log = log;
  }

  public synchronized void record(
      ViolationKind kind, String workerId, String sessionId, String detail) {
    Violation v = new Violation(++seq, clock.millis(), kind, workerId, sessionId, detail);
    kept.addLast(v);
    if (kept.size() > KEPT) {
      kept.removeFirst();
    }
    counts.merge(kind, 1L, Long::sum);
    log.event(
        "violation",
        "kind=" + kind.wire() + " worker=" + workerId + " session=" + sessionId + " " + detail);
  }

  public synchronized List<Violation> violations() {
    return new ArrayList<>(kept);
  }

  public synchronized long total() {
    return seq;
  }

  public synchronized Map<ViolationKind, Long> counts() {
    return new EnumMap<>(counts);
  }

  public synchronized long count(ViolationKind kind) {
    return counts.getOrDefault(kind, 0L);
  }
}
