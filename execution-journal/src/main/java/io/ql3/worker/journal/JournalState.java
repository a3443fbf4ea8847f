package io.ql3.worker.journal;

import io.ql3.worker.journal.JournalRecord.CompletionAcknowledged;
import io.ql3.worker.journal.JournalRecord.DrainBegun;
import io.ql3.worker.journal.JournalRecord.OfferAccepted;
import io.ql3.worker.journal.JournalRecord.Offline;
import io.ql3.worker.journal.JournalRecord.OperatorResolved;
import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import io.ql3.worker.journal.JournalRecord.RunStarted;
import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import io.ql3.worker.journal.JournalRecord.Superseded;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mutable fold of records into state: the one place that decides whether a record is allowed.
 * {@link #apply} checks first and mutates only when allowed, so a refused record changes nothing.
 * Not thread safe: the writer thread (or recovery) owns it.
 */
final class JournalState {
  static final class Run {
    final OfferAccepted offer;
    RunPhase phase = RunPhase.ACCEPTED;
    long childPid = -1;
    long childStartMillis = -1;
    RunResult result;
    Settlement settlement;

    Run(OfferAccepted offer) {
      this.offer = offer;
    }

    RunFact fact() {
      return new RunFact(offer, phase, childPid, childStartMillis, result, settlement);
    }
  }

  private final String workerId;
  private final int windowSize;
  private final int windowTailChars;

  /** The output-tail characters of the window's results together. */
  private long tailChars;

  /** Runs not settled, in acceptance order. */
  private final LinkedHashMap<RunKey, Run> live = new LinkedHashMap<>();

  /**
   * The settled window, oldest first: its facts only (a settled run never changes again), with
   * snapshots that copy nothing and an index by attempt (see SettledWindow).
   */
  private final SettledWindow window;

  private final LinkedHashMap<String, PullReservation> pulls = new LinkedHashMap<>();
  private SessionFact session;
  private long lastSeq;
  private JournalFacts cached;

  JournalState(String workerId, int windowSize) {
    this(workerId, windowSize, JournalConfig.COMPLETION_WINDOW_TAIL_CHARS);
  }

  /**
   * @param windowSize settled attempts kept at most
   * @param windowTailChars output-tail characters those attempts' results hold at most together
   *     (the newest one is kept whatever its size)
   */
  JournalState(String workerId, int windowSize, int windowTailChars) {
    this.workerId = workerId;
    this.windowSize = windowSize;
    this.windowTailChars = windowTailChars;
    this.window = new SettledWindow(windowSize);
  }

  long lastSeq() {
    return lastSeq;
  }

  void setLastSeq(long seq) {
    this.lastSeq = seq;
    cached = null;
  }

  /** Throws JournalStateException (and changes nothing) when the record is not allowed. */
  void apply(JournalRecord r, long seq) {
    check(r);
    mutate(r);
    lastSeq = seq;
    cached = null;
  }

  private void check(JournalRecord r) {
    if (r instanceof SessionRegistered s) {
      if (session != null && s.generation() <= session.generation()) {
        throw refuse(
            r, "generation " + s.generation() + " is not greater than " + session.generation());
      }
    } else if (r instanceof PullReserved p) {
      requireSessionStatus(r, SessionStatus.ACTIVE);
      if (pulls.containsKey(p.pullId())) {
        throw refuse(r, "pull " + p.pullId() + " is already open");
      }
    } else if (r instanceof PullClosed p) {
      if (!pulls.containsKey(p.pullId())) {
        throw refuse(r, "pull " + p.pullId() + " is not open");
      }
    } else if (r instanceof OfferAccepted o) {
      if (session == null
          || !session.sessionId().equals(o.sessionId())
          || session.generation() != o.generation()) {
        throw refuse(r, "offer is not for the current session " + session);
      }
      if (session.status() == SessionStatus.OFFLINE) {
        throw refuse(r, "session is offline");
      }
      if (live.containsKey(o.runKey()) || window.contains(o.runKey())) {
        throw refuse(r, "run attempt " + o.runKey() + " is already known: never run twice");
      }
    } else if (r instanceof DrainBegun d) {
      requireSession(r, d.sessionId(), d.generation());
      requireSessionStatus(r, SessionStatus.ACTIVE);
    } else if (r instanceof Offline o) {
      requireSession(r, o.sessionId(), o.generation());
      if (session.status() == SessionStatus.OFFLINE) {
        throw refuse(r, "session is already offline");
      }
      if (!live.isEmpty()) {
        throw refuse(r, live.size() + " run(s) are not settled");
      }
    } else {
      RunKey key = r.runKey();
      Run run = live.get(key);
      if (run == null) {
        throw refuse(r, "run attempt " + key + " is not live");
      }
      RunPhase next = targetPhase(r);
      if (!run.phase.canMoveTo(next)) {
        throw refuse(r, "run attempt " + key + " cannot go from " + run.phase + " to " + next);
      }
      if (r instanceof CompletionAcknowledged && run.phase != RunPhase.RESULT_RECORDED) {
        throw refuse(r, "run attempt " + key + " has no recorded result to acknowledge");
      }
    }
  }

  private static RunPhase targetPhase(JournalRecord r) {
    if (r instanceof RunStarted) {
      return RunPhase.STARTED;
    }
    if (r instanceof ResultRecorded) {
      return RunPhase.RESULT_RECORDED;
    }
    return RunPhase.SETTLED;
  }

  private void mutate(JournalRecord r) {
    if (r instanceof SessionRegistered s) {
      session = new SessionFact(s.sessionId(), s.generation(), SessionStatus.ACTIVE);
    } else if (r instanceof PullReserved p) {
      pulls.put(p.pullId(), new PullReservation(p.pullId(), p.maxRuns()));
    } else if (r instanceof PullClosed p) {
      pulls.remove(p.pullId());
    } else if (r instanceof OfferAccepted o) {
      live.put(o.runKey(), new Run(o));
    } else if (r instanceof DrainBegun) {
      session = new SessionFact(session.sessionId(), session.generation(), SessionStatus.DRAINING);
    } else if (r instanceof Offline) {
      session = new SessionFact(session.sessionId(), session.generation(), SessionStatus.OFFLINE);
      pulls.clear();
    } else {
      Run run = live.get(r.runKey());
      if (r instanceof RunStarted s) {
        run.phase = RunPhase.STARTED;
        run.childPid = s.childPid();
        run.childStartMillis = s.childStartMillis();
      } else if (r instanceof ResultRecorded res) {
        run.phase = RunPhase.RESULT_RECORDED;
        run.result = res.result();
      } else if (r instanceof CompletionAcknowledged a) {
        settle(
            run,
            switch (a.disposition()) {
              case ACCEPTED -> Settlement.ACKNOWLEDGED;
              case DUPLICATE -> Settlement.DUPLICATE;
              case UNDELIVERABLE -> Settlement.UNDELIVERABLE;
            });
      } else if (r instanceof Superseded) {
        settle(run, Settlement.SUPERSEDED);
      } else if (r instanceof OperatorResolved) {
        settle(run, Settlement.OPERATOR_RESOLVED);
      } else {
        throw new IllegalStateException("unhandled record " + r);
      }
    }
  }

  private void settle(Run run, Settlement settlement) {
    run.phase = RunPhase.SETTLED;
    run.settlement = settlement;
    live.remove(run.offer.runKey());
    addToWindow(run.fact());
  }

  private void addToWindow(RunFact fact) {
    RunFact replaced = window.addOrReplace(fact);
    tailChars += tailChars(fact) - tailChars(replaced);
    while (window.size() > windowSize || (tailChars > windowTailChars && window.size() > 1)) {
      tailChars -= tailChars(window.evictOldest());
    }
  }

  private static int tailChars(RunFact fact) {
    return fact == null || fact.result() == null ? 0 : fact.result().outputTail().length();
  }

  private void requireSession(JournalRecord r, String sessionId, long generation) {
    if (session == null
        || !session.sessionId().equals(sessionId)
        || session.generation() != generation) {
      throw refuse(r, "not the current session " + session);
    }
  }

  private void requireSessionStatus(JournalRecord r, SessionStatus status) {
    if (session == null || session.status() != status) {
      throw refuse(r, "session must be " + status + " but is " + session);
    }
  }

  private static JournalStateException refuse(JournalRecord r, String why) {
    return new JournalStateException(r.getClass().getSimpleName() + " refused: " + why);
  }

  /** Runs started with no result, in acceptance order. */
  List<Run> startedWithoutResult() {
    List<Run> out = new ArrayList<>();
    for (Run r : live.values()) {
      if (r.phase == RunPhase.STARTED) {
        out.add(r);
      }
    }
    return out;
  }

  JournalFacts facts(RecoveryRequired recoveryRequired) {
    if (cached != null && recoveryRequired == null) {
      return cached;
    }
    List<RunFact> accepted = new ArrayList<>();
    List<RunFact> running = new ArrayList<>();
    List<RunFact> pending = new ArrayList<>();
    for (Run r : live.values()) {
      switch (r.phase) {
        case ACCEPTED -> accepted.add(r.fact());
        case STARTED -> running.add(r.fact());
        case RESULT_RECORDED -> pending.add(r.fact());
        default -> throw new IllegalStateException("settled run in live set: " + r.offer.runKey());
      }
    }
    List<RunFact> settled = window.snapshot(); // settled facts never change: no copy
    JournalFacts f =
        new JournalFacts(
            workerId,
            lastSeq,
            Optional.ofNullable(session),
            accepted,
            running,
            pending,
            settled,
            new ArrayList<>(pulls.values()),
            Optional.ofNullable(recoveryRequired));
    if (recoveryRequired == null) {
      cached = f;
    }
    return f;
  }

  // ---- snapshot support: the exact state, restored without re-validating history ----

  SessionFact session() {
    return session;
  }

  Iterable<PullReservation> pulls() {
    return pulls.values();
  }

  /** The facts of the live runs in acceptance order, then of the window oldest first. */
  List<RunFact> allFacts() {
    List<RunFact> all = new ArrayList<>(live.size() + window.size());
    for (Run r : live.values()) {
      all.add(r.fact());
    }
    all.addAll(window.snapshot());
    return all;
  }

  int runCount() {
    return live.size() + window.size();
  }

  void restoreSession(SessionFact s) {
    session = s;
    cached = null;
  }

  void restorePull(PullReservation p) {
    pulls.put(p.pullId(), p);
    cached = null;
  }

  void restoreRun(RunFact f) {
    if (f.phase() == RunPhase.SETTLED) {
      addToWindow(f);
    } else {
      Run run = new Run(f.offer());
      run.phase = f.phase();
      run.childPid = f.childPid();
      run.childStartMillis = f.childStartMillis();
      run.result = f.result();
      run.settlement = f.settlement();
      live.put(run.offer.runKey(), run);
    }
    cached = null;
  }

  Map<RunKey, Run> liveView() {
    return live;
  }
}
