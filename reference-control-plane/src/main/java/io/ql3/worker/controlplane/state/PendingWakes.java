package io.ql3.worker.controlplane.state;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * What happened since parked pulls were last settled: the runs queued and the sessions that stopped
 * being pullable. {@link RunBook} and {@link SessionRules} add to it; {@link
 * ParkedPulls#settleParked} empties it, in work proportional to what it holds. Guarded by the
 * {@link ControlPlane} lock: only called under its monitor.
 */
final class PendingWakes {
  /** Runs queued (submitted or reclaimed) since parked pulls were last settled, in queue order. */
  final TreeMap<Long, Run> arrived = new TreeMap<>();

  /** Sessions that stopped being pullable (fenced, expired, transitioned) since the last settle. */
  final Set<Session> changedSessions = Collections.newSetFromMap(new IdentityHashMap<>());
}
