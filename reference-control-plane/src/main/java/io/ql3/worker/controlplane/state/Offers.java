package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Which queued runs a session can take, and the pull answer that offers them: a run matches a
 * session when its target worker and labels fit, the session advertises its executor, its spec is
 * within {@code maxSpecBytes} and its not-before time has passed; offers go in queue order, up to
 * {@code maxRuns} and the pull response cap. Also the {@code workAvailable} and {@code
 * nextPullAfterMs} facts. Called under the {@link ControlPlane} lock only.
 */
final class Offers {
  // Limits owned by the contract module.
  private static final int PULL_RESPONSE_CAP = Operation.PULL.responseCap();
  private static final long MAX_NEXT_PULL_HINT_MS = PullResponse.MAX_NEXT_PULL_AFTER_MS;

  private final Settings settings;
  private final WireCodec wire;
  private final EventLog log;
  private final RunBook runs;

  Offers(Settings settings, WireCodec wire, EventLog log, RunBook runs) {
    this.settings = settings;
    this.wire = wire;
    this.log = log;
    this.runs = runs;
  }

  /** Leases up to maxRuns queued runs to the session; null when none can be offered now. */
  Reply offer(Session s, Commands.Pull cmd, long now, boolean fromWake) {
    return offerFrom(s, cmd, now, fromWake, runs.queued());
  }

  /** {@link #offer} from {@code candidates} (queued runs in queue order; others are skipped). */
  Reply offerFrom(
      Session s, Commands.Pull cmd, long now, boolean fromWake, Collection<Run> candidates) {
    List<OfferData> offers = new ArrayList<>();
    List<Session.PulledRun> pulled = new ArrayList<>();
    int size = wire.pullResponse(s.generation, 0, List.of(), cmd.pullId()).length;
    for (Run r : candidates) {
      if (offers.size() >= cmd.maxRuns()) {
        break;
      }
      if (r.state != RunState.QUEUED || !matches(r, s, now)) {
        continue;
      }
      long attempt = r.nextAttempt();
      OfferData o = r.offer(attempt);
      int add = wire.offerSize(o) + (offers.isEmpty() ? 0 : 1);
      if (size + add > PULL_RESPONSE_CAP) {
        break;
      }
      size += add;
      offers.add(o);
      pulled.add(new Session.PulledRun(r, attempt));
    }
    if (offers.isEmpty()) {
      return null;
    }
    for (Session.PulledRun p : pulled) {
      runs.lease(p.run(), s, p.attempt());
    }
    s.rememberPull(cmd.pullId(), pulled, settings.pullIdsKept());
    StringBuilder ids = new StringBuilder();
    for (OfferData o : offers) {
      ids.append(ids.length() == 0 ? "" : ",").append(o.runId()).append('#').append(o.attempt());
    }
    log.event(
        "offer",
        "worker="
            + s.workerId
            + " session="
            + s.sessionId
            + " pullId="
            + cmd.pullId()
            + (fromWake ? " (woken)" : "")
            + " runs="
            + ids);
    return Reply.ok(wire.pullResponse(s.generation, 0, offers, cmd.pullId()));
  }

  private boolean matches(Run r, Session s, long now) {
    if (r.notBefore > now) {
      return false;
    }
    return fitsSession(r, s);
  }

  /** True when the session could take {@code r} once it is due (time aside). */
  static boolean fitsSession(Run r, Session s) {
    if (r.targetWorker != null && !r.targetWorker.equals(s.workerId)) {
      return false;
    }
    if (!s.capability.executors().contains(r.executor)
        || r.spec.length > s.capability.maxSpecBytes()) {
      return false;
    }
    for (Map.Entry<String, String> e : r.targetLabels.entrySet()) {
      if (!e.getValue().equals(s.capability.labels().get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** True when a queued run matches the session now (the heartbeat's {@code workAvailable}). */
  boolean anyQueuedFor(Session s, long now) {
    for (Run r : runs.queued()) {
      if (matches(r, s, now)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Milliseconds until the earliest delayed run this session could take becomes available; 0: no
   * hint.
   */
  long nextPullHint(Session s, long now) {
    long best = Long.MAX_VALUE;
    for (Run r : runs.queued()) {
      if (r.notBefore > now && fitsSession(r, s)) {
        best = Math.min(best, r.notBefore - now);
      }
    }
    return best == Long.MAX_VALUE ? 0 : Math.min(best, MAX_NEXT_PULL_HINT_MS);
  }
}
