package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The parked long polls, in the order they parked and indexed by session and by worker, and the one
 * place that answers them when something changes ({@link #settleParked}). A pull is answered once:
 * whoever unparks it (settle, its timeout, or its client going away) owns its answer. Called under
 * the {@link ControlPlane} lock only; answers go out through {@link
 * ControlPlane.PullWaiter#deliver}.
 */
final class ParkedPulls {
  private final SessionRules rules;
  private final Offers offers;
  private final Answers answers;
  private final PendingWakes wakes;

  /**
   * Parked long polls in the order they parked, indexed by session and by worker (see
   * settleParked).
   */
  private final Set<ParkedPull> parked = new LinkedHashSet<>();

  private final Map<Session, Set<ParkedPull>> parkedBySession = new IdentityHashMap<>();
  private final Map<String, Set<ParkedPull>> parkedByWorker = new HashMap<>();

  /** Arrived runs that were not due yet: they wake parked pulls once due. */
  private final TreeMap<Long, Run> arrivedDelayed = new TreeMap<>();

  ParkedPulls(SessionRules rules, Offers offers, Answers answers, PendingWakes wakes) {
    this.rules = rules;
    this.offers = offers;
    this.answers = answers;
    this.wakes = wakes;
  }

  void park(ParkedPull p) {
    parked.add(p);
    parkedBySession.computeIfAbsent(p.session, k -> new LinkedHashSet<>()).add(p);
    parkedByWorker.computeIfAbsent(p.session.workerId, k -> new LinkedHashSet<>()).add(p);
  }

  /** False when {@code p} was not parked (answered or abandoned already). */
  boolean unpark(ParkedPull p) {
    if (!parked.remove(p)) {
      return false;
    }
    Set<ParkedPull> bySession = parkedBySession.get(p.session);
    bySession.remove(p);
    if (bySession.isEmpty()) {
      parkedBySession.remove(p.session);
    }
    Set<ParkedPull> byWorker = parkedByWorker.get(p.session.workerId);
    byWorker.remove(p);
    if (byWorker.isEmpty()) {
      parkedByWorker.remove(p.session.workerId);
    }
    return true;
  }

  int count() {
    return parked.size();
  }

  /**
   * Answers parked pulls that can be answered now, in work proportional to what happened since the
   * last call (not to parked pulls times queue length): the parked pulls of each session that
   * stopped being pullable get the refusal a new pull would get; each run that arrived (and is due)
   * goes to the first parked pull, in park order, that can take it (for a targeted run: only that
   * worker's pulls), which is then offered up to maxRuns of the arrived runs. Older queued runs
   * need no look: a pull parks only when none of them matched, and a run's match with a session
   * changes only with time (delayed runs, kept in {@link #arrivedDelayed} until due). Loops because
   * answering can expire or reclaim more.
   */
  void settleParked(long now) {
    if (!arrivedDelayed.isEmpty()) {
      for (Iterator<Run> it = arrivedDelayed.values().iterator(); it.hasNext(); ) {
        Run r = it.next();
        if (r.notBefore <= now || r.state != RunState.QUEUED) {
          it.remove();
          if (r.state == RunState.QUEUED) {
            wakes.arrived.put(r.seq, r);
          }
        }
      }
    }
    while (!wakes.changedSessions.isEmpty() || !wakes.arrived.isEmpty()) {
      if (!wakes.changedSessions.isEmpty()) {
        List<Session> changed = new ArrayList<>(wakes.changedSessions);
        wakes.changedSessions.clear();
        for (Session s : changed) {
          Set<ParkedPull> ofSession = parkedBySession.get(s);
          if (ofSession == null) {
            continue;
          }
          for (ParkedPull p : new ArrayList<>(ofSession)) {
            Reply answer =
                rules.checkSession(p.session, p.command.generation(), "pull", null, now, false);
            if (answer == null && p.session.status != SessionStatus.ACTIVE) {
              answer =
                  answers.error(
                      ErrorCode.SESSION_NOT_ACTIVE, "session is " + p.session.status.wire());
            }
            if (answer != null && unpark(p)) {
              p.waiter.deliver(answer);
            }
          }
        }
        continue;
      }
      TreeMap<Long, Run> batch = new TreeMap<>(wakes.arrived);
      wakes.arrived.clear();
      if (parked.isEmpty()) {
        continue;
      }
      for (Run r : batch.values()) {
        if (r.state != RunState.QUEUED) {
          continue; // offered to an earlier pull of this batch, or cancelled
        }
        if (r.notBefore > now) {
          arrivedDelayed.put(r.seq, r);
          continue;
        }
        ParkedPull taker = firstTaker(r, now);
        if (taker != null) {
          Reply answer =
              offers.offerFrom(
                  taker.session, taker.command, now, true, batch.tailMap(r.seq, true).values());
          unpark(taker);
          taker.waiter.deliver(answer);
        }
      }
    }
  }

  /**
   * The first parked pull, in park order, whose session is pullable and can take {@code r}; null if
   * none.
   */
  private ParkedPull firstTaker(Run r, long now) {
    Collection<ParkedPull> candidates =
        r.targetWorker == null ? parked : parkedByWorker.get(r.targetWorker);
    if (candidates == null) {
      return null;
    }
    for (ParkedPull p : candidates) {
      Session s = p.session;
      rules.expireIfDue(
          s, now); // an expiry marks the session changed: its pulls get their refusal next round
      if (!s.fenced
          && s.status == SessionStatus.ACTIVE
          && p.command.generation() == s.generation
          && Offers.fitsSession(r, s)) {
        return p;
      }
    }
    return null;
  }
}
