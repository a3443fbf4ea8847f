package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Limits;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The server's state and the rules of contract sections 4 and 5: generations, sessions (version,
 * status, lease on the injected clock), replay, fencing, the run queue, offers, reclaim and
 * completions.
 *
 * <p>Concurrency: every public method runs under this object's monitor (one lock for all state).
 * Calls are short (no I/O, except recording a new generation when a {@link GenerationFile} is
 * given); parked pulls are answered through {@link PullWaiter#deliver}, which implementations must
 * only hand off to their own thread. Time comes only from the {@link Clock}: tests drive it by
 * hand.
 */
public final class ControlPlane {
  /**
   * How a parked long poll gets its answer once runs arrive (or the session stops being pullable).
   */
  public interface PullWaiter {
    void deliver(Reply reply);
  }

  /**
   * The result of a pull: an answer now, or a parked long poll to wait on for at most {@code
   * parkMs}.
   */
  public sealed interface PullResult permits Answered, Parked {}

  public record Answered(Reply reply) implements PullResult {}

  public record Parked(Object handle, long parkMs) implements PullResult {}

  // Limits owned by the contract module.
  private static final int HEARTBEAT_RESPONSE_CAP = Operation.HEARTBEAT.responseCap();
  private static final int PULL_RESPONSE_CAP = Operation.PULL.responseCap();
  private static final int MAX_CANCEL_RUNS = HeartbeatResponse.MAX_CANCEL_RUNS;
  private static final long MAX_NEXT_PULL_HINT_MS = PullResponse.MAX_NEXT_PULL_AFTER_MS;

  private final Clock clock;
  private final Settings settings;
  private final WireCodec wire;
  private final Auditor auditor;
  private final EventLog log;
  private final String runIdPrefix;

  /** Where generations outlive this process, or null (everything in memory). */
  private final GenerationFile generations;

  private final Map<String, Worker> workers = new HashMap<>();
  private final Map<String, Run> runs = new LinkedHashMap<>();

  /** Queued runs in submission order (a reclaimed run keeps its place). */
  private final TreeMap<Long, Run> queue = new TreeMap<>();

  /**
   * Parked long polls in the order they parked, indexed by session and by worker (see
   * settleParked).
   */
  private final Set<ParkedPull> parked = new LinkedHashSet<>();

  private final Map<Session, Set<ParkedPull>> parkedBySession = new IdentityHashMap<>();
  private final Map<String, Set<ParkedPull>> parkedByWorker = new HashMap<>();

  /** Runs queued (submitted or reclaimed) since parked pulls were last settled, in queue order. */
  private final TreeMap<Long, Run> arrived = new TreeMap<>();

  /** Arrived runs that were not due yet: they wake parked pulls once due. */
  private final TreeMap<Long, Run> arrivedDelayed = new TreeMap<>();

  /** Sessions that stopped being pullable (fenced, expired, transitioned) since the last settle. */
  private final Set<Session> changedSessions = Collections.newSetFromMap(new IdentityHashMap<>());

  private long runSeq;

  private static final class ParkedPull {
    final Session session;
    final Commands.Pull command;
    final PullWaiter waiter;

    ParkedPull(Session session, Commands.Pull command, PullWaiter waiter) {
      this.session = session;
      this.command = command;
      this.waiter = waiter;
    }
  }

  public ControlPlane(
      Clock clock, Settings settings, WireCodec wire, Auditor auditor, EventLog log) {
    this(clock, settings, wire, auditor, log, null);
  }

  /**
   * @param generations where each worker's generation counter is kept across restarts (every
   *     generation handed out is recorded before it is answered; the only I/O under the lock), or
   *     null to keep it in memory like everything else
   */
  public ControlPlane(
      Clock clock,
      Settings settings,
      WireCodec wire,
      Auditor auditor,
      EventLog log,
      GenerationFile generations) {
    this.generations = generations;
    this.clock = clock;
    this.settings = settings;
    this.wire = wire;
    this.auditor = auditor;
    this.log = log;
    // Run ids of two server lifetimes never collide (a worker journal may outlive this server's
    // memory).
    this.runIdPrefix = "r" + Long.toString(clock.millis(), 36) + "-";
  }

  public Settings settings() {
    return settings;
  }

  public Auditor auditor() {
    return auditor;
  }

  // ---------------------------------------------------------------- register

  public synchronized Reply register(
      String workerId, String sessionId, byte[] body, Commands.Register cmd) {
    long now = clock.millis();
    Worker w = worker(workerId);
    Session existing = w.sessions.get(sessionId);
    if (existing != null) {
      expireIfDue(existing, now);
      if (!existing.fenced
          && existing.status == SessionStatus.ACTIVE
          && existing.version == 1
          && Arrays.equals(existing.registerBytes, body)) {
        log.event("register-replay", "worker=" + workerId + " session=" + sessionId);
        return Reply.ok(existing.registerResponse);
      }
      return refuse(
          existing,
          ErrorCode.SESSION_CONFLICT,
          "sessionId "
              + sessionId
              + " was already registered with another body, or is no longer active at version 1",
          now);
    }
    if (w.sessionIdsSeen.contains(sessionId)) {
      return error(
          ErrorCode.SESSION_CONFLICT,
          "sessionId " + sessionId + " was already used by this worker");
    }
    Session previous = w.last;
    if (previous != null) {
      expireIfDue(previous, now);
      fence(previous, "replaced by session " + sessionId);
    }
    long generation = ++w.generation;
    recordGeneration(w);
    byte[] response =
        wire.registerResponse(
            generation,
            settings.heartbeatIntervalMs(),
            settings.leaseTtlMs(),
            previous == null ? null : previous.generation,
            previous == null ? null : previous.sessionId,
            previous == null ? null : previous.statusAtFence.wire());
    Session s = new Session(workerId, sessionId, generation, body.clone(), response, cmd, now);
    s.heartbeatIntervalMs = settings.heartbeatIntervalMs();
    s.leaseExpiresAt = now + settings.leaseTtlMs();
    w.add(s);
    w.current = s;
    w.last = s;
    log.event(
        "register",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " generation="
            + generation
            + " slots="
            + cmd.availableSlots()
            + "/"
            + cmd.maxConcurrentRuns()
            + (previous == null
                ? ""
                : " replaced=" + previous.sessionId + "(" + previous.statusAtFence.wire() + ")"));
    settleParked(now);
    return Reply.ok(response);
  }

  // ---------------------------------------------------------------- heartbeat

  public synchronized Reply heartbeat(
      String workerId, String sessionId, byte[] body, Commands.Heartbeat cmd) {
    Reply result = heartbeat0(workerId, sessionId, body, cmd);
    settleParked(clock.millis());
    return result;
  }

  private Reply heartbeat0(String workerId, String sessionId, byte[] body, Commands.Heartbeat cmd) {
    long now = clock.millis();
    Session s = session(workerId, sessionId);
    Reply refused = checkSession(s, cmd.generation(), "heartbeat", body, now, true);
    if (refused != null) {
      return refused;
    }
    if (s.status == SessionStatus.OFFLINE) {
      return refuse(s, ErrorCode.SESSION_NOT_ACTIVE, "session is offline", now);
    }
    if (cmd.version() != s.version || cmd.status() != s.status) {
      return refuse(
          s,
          ErrorCode.VERSION_CONFLICT,
          "server holds version "
              + s.version
              + " status "
              + s.status.wire()
              + "; request has version "
              + cmd.version()
              + " status "
              + cmd.status().wire(),
          now);
    }
    Worker w = worker(workerId);
    boolean credentialRetry = w.credentialsRefusedSinceBeat;
    w.credentialsRefusedSinceBeat = false;
    if (!credentialRetry
        && now < s.lastBeatAt + s.heartbeatIntervalMs - settings.earlyToleranceMs()) {
      auditor.record(
          ViolationKind.EARLY_HEARTBEAT,
          workerId,
          sessionId,
          (now - s.lastBeatAt)
              + " ms after the previous register/heartbeat; interval "
              + s.heartbeatIntervalMs
              + " ms");
    }
    s.version++;
    s.lastBeatAt = now;
    s.availableSlots = cmd.availableSlots();
    s.maxConcurrentRuns = cmd.maxConcurrentRuns();
    long ttl =
        s.status == SessionStatus.DRAINING ? settings.drainingLeaseTtlMs() : settings.leaseTtlMs();
    s.leaseExpiresAt = now + ttl;
    boolean workAvailable = s.status == SessionStatus.ACTIVE && anyQueuedFor(s, now);
    byte[] response = heartbeatResponse(s, ttl, workAvailable);
    applied(s, "heartbeat", body, response);
    return Reply.ok(response);
  }

  private byte[] heartbeatResponse(Session s, long ttl, boolean workAvailable) {
    List<Run> wanted = new ArrayList<>();
    for (Run r : s.leased) {
      if (r.cancelRequested) {
        wanted.add(r);
      }
    }
    List<String> cancel = new ArrayList<>();
    byte[] base =
        wire.heartbeatResponse(
            List.of(),
            s.generation,
            s.heartbeatIntervalMs,
            ttl,
            s.status,
            s.version,
            workAvailable);
    if (!wanted.isEmpty()) {
      // Rotate through the wanted ones so that more than fit one body all get their turn.
      int size = base.length;
      int start = Math.floorMod(s.cancelCursor, wanted.size());
      for (int i = 0; i < wanted.size() && cancel.size() < MAX_CANCEL_RUNS; i++) {
        String id = wanted.get((start + i) % wanted.size()).runId;
        int add = id.length() + 2 + (cancel.isEmpty() ? 0 : 1);
        if (size + add > HEARTBEAT_RESPONSE_CAP) {
          break;
        }
        size += add;
        cancel.add(id);
      }
      s.cancelCursor = start + cancel.size();
    }
    if (cancel.isEmpty()) {
      return base;
    }
    return wire.heartbeatResponse(
        cancel, s.generation, s.heartbeatIntervalMs, ttl, s.status, s.version, workAvailable);
  }

  // ---------------------------------------------------------------- transition

  public synchronized Reply transition(
      String workerId, String sessionId, byte[] body, Commands.Transition cmd) {
    Reply result = transition0(workerId, sessionId, body, cmd);
    settleParked(clock.millis());
    return result;
  }

  private Reply transition0(
      String workerId, String sessionId, byte[] body, Commands.Transition cmd) {
    long now = clock.millis();
    Session s = session(workerId, sessionId);
    Reply refused = checkSession(s, cmd.generation(), "transition", body, now, true);
    if (refused != null) {
      return refused;
    }
    if (s.status == SessionStatus.OFFLINE) {
      return refuse(s, ErrorCode.SESSION_NOT_ACTIVE, "session is offline", now);
    }
    if (cmd.version() != s.version || cmd.from() != s.status) {
      return refuse(
          s,
          ErrorCode.VERSION_CONFLICT,
          "server holds version "
              + s.version
              + " status "
              + s.status.wire()
              + "; request has version "
              + cmd.version()
              + " from "
              + cmd.from().wire(),
          now);
    }
    s.moveTo(cmd.to());
    s.version++;
    s.availableSlots = 0;
    s.maxConcurrentRuns = cmd.maxConcurrentRuns();
    long ttl;
    if (cmd.to() == SessionStatus.OFFLINE) {
      ttl = 0;
      s.leaseExpiresAt = now;
      reclaim(s, "offline");
    } else {
      ttl = settings.drainingLeaseTtlMs();
      s.leaseExpiresAt = now + ttl;
    }
    byte[] response = wire.transitionResponse(s.generation, ttl, s.status, s.version);
    applied(s, "transition", body, response);
    log.event(
        "transition",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " "
            + cmd.from().wire()
            + "->"
            + cmd.to().wire()
            + " version="
            + s.version);
    changedSessions.add(s);
    settleParked(now);
    return Reply.ok(response);
  }

  // ---------------------------------------------------------------- pull

  public synchronized PullResult pull(
      String workerId, String sessionId, Commands.Pull cmd, PullWaiter waiter) {
    PullResult result = pull0(workerId, sessionId, cmd, waiter);
    settleParked(clock.millis());
    return result;
  }

  private PullResult pull0(
      String workerId, String sessionId, Commands.Pull cmd, PullWaiter waiter) {
    long now = clock.millis();
    Session s = session(workerId, sessionId);
    if (s == null) {
      auditor.record(
          ViolationKind.PULL_NOT_ACTIVE, workerId, sessionId, "pull on an unknown session");
      return new Answered(error(ErrorCode.SESSION_NOT_ACTIVE, "unknown session"));
    }
    boolean expiredBefore = s.status == SessionStatus.EXPIRED;
    Reply refused = checkSession(s, cmd.generation(), "pull", null, now, true);
    if (refused != null) {
      if (s.status == SessionStatus.EXPIRED
          && expiredBefore
          && now - s.leaseExpiresAt > settings.earlyToleranceMs()) {
        auditor.record(
            ViolationKind.PULL_NOT_ACTIVE,
            workerId,
            sessionId,
            "pull " + (now - s.leaseExpiresAt) + " ms after the lease expired");
      }
      return new Answered(refused);
    }
    if (s.status != SessionStatus.ACTIVE) {
      auditor.record(
          ViolationKind.PULL_NOT_ACTIVE, workerId, sessionId, "pull while " + s.status.wire());
      return new Answered(
          refuse(s, ErrorCode.SESSION_NOT_ACTIVE, "session is " + s.status.wire(), now));
    }
    if (cmd.maxRuns() > s.capability.pullPage()) {
      auditor.record(
          ViolationKind.INVALID_BODY,
          workerId,
          sessionId,
          "pull maxRuns " + cmd.maxRuns() + " above pullPage " + s.capability.pullPage());
      return new Answered(
          error(
              ErrorCode.CONTRACT_VIOLATION,
              "maxRuns "
                  + cmd.maxRuns()
                  + " is above the advertised pullPage "
                  + s.capability.pullPage()));
    }
    List<Session.PulledRun> original = s.pulls.get(cmd.pullId());
    // A replay is judged by its first try: the runs that fill the slots now are its own offers.
    int canTake = s.maxConcurrentRuns - s.leased.size();
    if (cmd.maxRuns() > canTake && (original == null || original.isEmpty())) {
      auditor.record(
          ViolationKind.PULL_ABOVE_SLOTS,
          workerId,
          sessionId,
          "maxRuns "
              + cmd.maxRuns()
              + " while the session holds "
              + s.leased.size()
              + " of "
              + s.maxConcurrentRuns
              + " runs");
    }
    if (original != null && !original.isEmpty()) {
      List<OfferData> still = new ArrayList<>();
      for (Session.PulledRun p : original) {
        Run r = p.run();
        if (r.state == RunState.LEASED
            && r.lease.sessionId().equals(s.sessionId)
            && r.lease.attempt() == p.attempt()) {
          still.add(r.offer(p.attempt()));
        }
      }
      log.event(
          "pull-replay",
          "worker="
              + workerId
              + " session="
              + sessionId
              + " pullId="
              + cmd.pullId()
              + " offers="
              + still.size());
      return new Answered(Reply.ok(wire.pullResponse(s.generation, 0, still, cmd.pullId())));
    }
    Reply answer = offer(s, cmd, now, false);
    if (answer != null || cmd.waitMs() == 0) {
      return new Answered(answer != null ? answer : emptyPull(s, cmd, now));
    }
    ParkedPull p = new ParkedPull(s, cmd, waiter);
    park(p);
    long hint = nextPullHint(s, now);
    long parkMs = hint > 0 ? Math.min(hint, cmd.waitMs()) : cmd.waitMs();
    return new Parked(p, parkMs);
  }

  /** The long poll's time is up: the empty answer, or null when the pull was answered meanwhile. */
  public synchronized Reply parkTimedOut(Object handle) {
    Reply result = parkTimedOut0(handle);
    settleParked(clock.millis());
    return result;
  }

  private Reply parkTimedOut0(Object handle) {
    ParkedPull p = (ParkedPull) handle;
    if (!unpark(p)) {
      return null;
    }
    long now = clock.millis();
    Reply refused = checkSession(p.session, p.command.generation(), "pull", null, now, false);
    if (refused != null) {
      return refused;
    }
    Reply answer = offer(p.session, p.command, now, false);
    return answer != null ? answer : emptyPull(p.session, p.command, now);
  }

  /** The client went away (stream reset, connection closed): forget the parked pull. */
  public synchronized void parkAbandoned(Object handle) {
    unpark((ParkedPull) handle);
  }

  private void park(ParkedPull p) {
    parked.add(p);
    parkedBySession.computeIfAbsent(p.session, k -> new LinkedHashSet<>()).add(p);
    parkedByWorker.computeIfAbsent(p.session.workerId, k -> new LinkedHashSet<>()).add(p);
  }

  /** False when {@code p} was not parked (answered or abandoned already). */
  private boolean unpark(ParkedPull p) {
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

  public synchronized int parkedCount() {
    return parked.size();
  }

  private Reply emptyPull(Session s, Commands.Pull cmd, long now) {
    return Reply.ok(wire.pullResponse(s.generation, nextPullHint(s, now), List.of(), cmd.pullId()));
  }

  /** Leases up to maxRuns queued runs to the session; null when none can be offered now. */
  private Reply offer(Session s, Commands.Pull cmd, long now, boolean fromWake) {
    return offerFrom(s, cmd, now, fromWake, queue.values());
  }

  /** {@link #offer} from {@code candidates} (queued runs in queue order; others are skipped). */
  private Reply offerFrom(
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
      Run r = p.run();
      queue.remove(r.seq);
      r.moveTo(RunState.LEASED);
      r.lease = new Lease(s.workerId, s.sessionId, s.generation, p.attempt());
      s.leased.add(r);
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

  private static boolean fitsSession(Run r, Session s) {
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

  private boolean anyQueuedFor(Session s, long now) {
    for (Run r : queue.values()) {
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
  private long nextPullHint(Session s, long now) {
    long best = Long.MAX_VALUE;
    for (Run r : queue.values()) {
      if (r.notBefore > now && fitsSession(r, s)) {
        best = Math.min(best, r.notBefore - now);
      }
    }
    return best == Long.MAX_VALUE ? 0 : Math.min(best, MAX_NEXT_PULL_HINT_MS);
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
  private void settleParked(long now) {
    if (!arrivedDelayed.isEmpty()) {
      for (Iterator<Run> it = arrivedDelayed.values().iterator(); it.hasNext(); ) {
        Run r = it.next();
        if (r.notBefore <= now || r.state != RunState.QUEUED) {
          it.remove();
          if (r.state == RunState.QUEUED) {
            arrived.put(r.seq, r);
          }
        }
      }
    }
    while (!changedSessions.isEmpty() || !arrived.isEmpty()) {
      if (!changedSessions.isEmpty()) {
        List<Session> changed = new ArrayList<>(changedSessions);
        changedSessions.clear();
        for (Session s : changed) {
          Set<ParkedPull> ofSession = parkedBySession.get(s);
          if (ofSession == null) {
            continue;
          }
          for (ParkedPull p : new ArrayList<>(ofSession)) {
            Reply answer =
                checkSession(p.session, p.command.generation(), "pull", null, now, false);
            if (answer == null && p.session.status != SessionStatus.ACTIVE) {
              answer = error(ErrorCode.SESSION_NOT_ACTIVE, "session is " + p.session.status.wire());
            }
            if (answer != null && unpark(p)) {
              p.waiter.deliver(answer);
            }
          }
        }
        continue;
      }
      TreeMap<Long, Run> batch = new TreeMap<>(arrived);
      arrived.clear();
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
              offerFrom(
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
      expireIfDue(
          s, now); // an expiry marks the session changed: its pulls get their refusal next round
      if (!s.fenced
          && s.status == SessionStatus.ACTIVE
          && p.command.generation() == s.generation
          && fitsSession(r, s)) {
        return p;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- complete

  public synchronized Reply complete(
      String workerId, String sessionId, String runId, byte[] body, Commands.Complete cmd) {
    Reply result = complete0(workerId, sessionId, runId, body, cmd);
    settleParked(clock.millis());
    return result;
  }

  private Reply complete0(
      String workerId, String sessionId, String runId, byte[] body, Commands.Complete cmd) {
    long now = clock.millis();
    Run r = runs.get(runId);
    if (r == null) {
      return error(ErrorCode.RUN_NOT_LEASED, "unknown run " + runId);
    }
    if (r.lease == null || !r.lease.matches(workerId, sessionId, cmd.generation(), cmd.attempt())) {
      return error(
          ErrorCode.RUN_NOT_LEASED,
          "run "
              + runId
              + " attempt "
              + cmd.attempt()
              + " is not leased to session "
              + sessionId
              + " generation "
              + cmd.generation());
    }
    if (r.completionBytes != null) {
      if (Arrays.equals(r.completionBytes, body)) {
        return Reply.ok(wire.completeResponse(cmd.attempt(), true, runId));
      }
      return error(
          ErrorCode.RUN_NOT_LEASED,
          "run "
              + runId
              + " attempt "
              + cmd.attempt()
              + " was already completed with another body");
    }
    if (r.state == RunState.QUEUED) {
      queue.remove(r.seq);
    }
    Session holder = session(r.lease.workerId(), r.lease.sessionId());
    if (holder != null) {
      holder.leased.remove(r);
    }
    r.moveTo("uncertain".equals(cmd.outcome()) ? RunState.QUARANTINED : RunState.COMPLETED);
    r.completionBytes = body.clone();
    r.outcome = cmd.outcome();
    r.completedBySession = sessionId;
    r.completedAt = now;
    log.event(
        "complete",
        "worker="
            + workerId
            + " session="
            + sessionId
            + " run="
            + runId
            + "#"
            + cmd.attempt()
            + " outcome="
            + cmd.outcome()
            + (r.state == RunState.QUARANTINED ? " (quarantined)" : ""));
    return Reply.ok(wire.completeResponse(cmd.attempt(), false, runId));
  }

  // ---------------------------------------------------------------- session request overlap

  /** A register/heartbeat/transition of this worker starts; records an overlap violation. */
  public synchronized void sessionRequestStarted(
      String workerId, String sessionId, String operation) {
    Worker w = worker(workerId);
    if (++w.sessionRequestsInFlight > 1) {
      auditor.record(
          ViolationKind.OVERLAPPING_SESSION_REQUESTS,
          workerId,
          sessionId,
          operation
              + " while "
              + (w.sessionRequestsInFlight - 1)
              + " other session request(s) in flight");
    }
  }

  public synchronized void sessionRequestEnded(String workerId) {
    Worker w = worker(workerId);
    w.sessionRequestsInFlight = Math.max(0, w.sessionRequestsInFlight - 1);
  }

  // ---------------------------------------------------------------- shared rules

  /**
   * The checks every session request shares, in order: unknown session, fenced (or a generation
   * that is not the session's), lease expired, then exact replay of the last applied request
   * (heartbeat and transition: {@code body} non-null). Null: go on.
   */
  private Reply checkSession(
      Session s, long generation, String operation, byte[] body, long now, boolean audit) {
    if (s == null) {
      return error(ErrorCode.SESSION_NOT_ACTIVE, "unknown session");
    }
    if (audit && s.first409At >= 0 && now - s.first409At > settings.earlyToleranceMs()) {
      auditor.record(
          ViolationKind.REQUEST_AFTER_FENCE,
          s.workerId,
          s.sessionId,
          operation + " " + (now - s.first409At) + " ms after this session was answered 409");
    }
    expireIfDue(s, now);
    if (s.fenced || generation != s.generation) {
      return refuse(
          s,
          ErrorCode.SESSION_FENCED,
          "generation "
              + generation
              + " is not the worker's current one ("
              + worker(s.workerId).generation
              + ")",
          now);
    }
    if (s.status == SessionStatus.EXPIRED) {
      return refuse(s, ErrorCode.LEASE_EXPIRED, "the session's lease expired", now);
    }
    if (body != null && operation.equals(s.lastOperation) && Arrays.equals(body, s.lastRequest)) {
      return Reply.ok(s.lastResponse);
    }
    return null;
  }

  private void applied(Session s, String operation, byte[] body, byte[] response) {
    s.lastOperation = operation;
    s.lastRequest = body.clone();
    s.lastResponse = response;
  }

  private Reply refuse(Session s, ErrorCode code, String message, long now) {
    if (s.first409At < 0) {
      s.first409At = now;
    }
    return error(code, message);
  }

  private Reply error(ErrorCode code, String message) {
    return new Reply(code.httpStatus(), wire.errorBody(code, message), -1);
  }

  private void expireIfDue(Session s, long now) {
    if (s.status.leased() && now >= s.leaseExpiresAt) {
      s.moveTo(SessionStatus.EXPIRED);
      log.event(
          "expire",
          "worker=" + s.workerId + " session=" + s.sessionId + " generation=" + s.generation);
      reclaim(s, "expired");
      changedSessions.add(s);
    }
  }

  private void fence(Session s, String why) {
    if (s.fenced) {
      return;
    }
    s.fenced = true;
    s.statusAtFence = s.status;
    log.event(
        "fence",
        "worker="
            + s.workerId
            + " session="
            + s.sessionId
            + " generation="
            + s.generation
            + " status="
            + s.status.wire()
            + " ("
            + why
            + ")");
    reclaim(s, "fenced");
    changedSessions.add(s);
  }

  /**
   * Puts the session's leased runs back in the queue; the attempt stays completable until
   * re-offered.
   */
  private void reclaim(Session s, String why) {
    if (s.leased.isEmpty()) {
      return;
    }
    StringBuilder ids = new StringBuilder();
    for (Run r : s.leased) {
      if (r.state != RunState.LEASED) {
        continue;
      }
      r.reclaims++;
      if (r.cancelRequested) {
        r.moveTo(RunState.CANCELLED);
      } else {
        r.moveTo(RunState.QUEUED);
        queue.put(r.seq, r);
        arrived.put(r.seq, r);
      }
      ids.append(ids.length() == 0 ? "" : ",")
          .append(r.runId)
          .append("->")
          .append(r.state == RunState.QUEUED ? "attempt " + r.nextAttempt() : "cancelled");
    }
    s.leased.clear();
    log.event(
        "reclaim",
        "worker=" + s.workerId + " session=" + s.sessionId + " (" + why + ") runs=" + ids);
  }

  /**
   * The ingress refused this worker's bearer token (401): see {@link
   * Worker#credentialsRefusedSinceBeat}.
   */
  public synchronized void credentialsRefused(String workerId) {
    worker(workerId).credentialsRefusedSinceBeat = true;
  }

  private Worker worker(String workerId) {
    return workers.computeIfAbsent(
        workerId,
        id -> {
          Worker w = new Worker(id);
          if (generations != null) {
            w.generation =
                generations.last(
                    id); // the next register answers one more than any earlier lifetime did
          }
          return w;
        });
  }

  private void recordGeneration(Worker w) {
    if (generations != null) {
      generations.record(w.workerId, w.generation);
    }
  }

  private Session session(String workerId, String sessionId) {
    Worker w = workers.get(workerId);
    return w == null ? null : w.sessions.get(sessionId);
  }

  // ---------------------------------------------------------------- admin

  /**
   * Expires every lapsed lease now (reclaiming runs); called periodically and before admin reads.
   */
  public synchronized void sweep() {
    long now = clock.millis();
    for (Worker w : workers.values()) {
      for (Session s : new ArrayList<>(w.sessions.values())) {
        expireIfDue(s, now);
      }
    }
    settleParked(now);
  }

  public synchronized Views.SubmitResult submit(RunSubmission sub) {
    if (sub.count() < 1 || sub.count() > 100_000) {
      throw new IllegalArgumentException("count must be in 1..100000");
    }
    if (sub.workerId() != null && !wire.validWorkerId(sub.workerId())) {
      throw new IllegalArgumentException(
          "workerId '" + sub.workerId() + "' is not a contract workerId");
    }
    if (sub.runId() != null) {
      if (sub.count() != 1) {
        throw new IllegalArgumentException("runId can only be given with count 1");
      }
      if (runs.containsKey(sub.runId())) {
        throw new IllegalArgumentException("run " + sub.runId() + " exists");
      }
    }
    String key = sub.idempotencyKey();
    if (sub.delayMs() < 0) {
      throw new IllegalArgumentException("delayMs must be >= 0");
    }
    byte[] spec = wire.canonicalize(sub.spec());
    if (spec.length > Limits.MAX_SPEC_BYTES) {
      throw new IllegalArgumentException(
          "spec is "
              + spec.length
              + " canonical bytes; workers take at most "
              + Limits.MAX_SPEC_BYTES);
    }
    String digest = wire.digest(spec);
    // The contract owns the offer rules: check the first offer of this submission before queuing
    // anything.
    String firstId = sub.runId() != null ? sub.runId() : runIdPrefix + (runSeq + 1);
    wire.checkOffer(
        new OfferData(
            1,
            sub.executor() == null ? "" : sub.executor(),
            key != null ? key : firstId,
            firstId,
            spec,
            digest,
            sub.timeoutMs()));
    Map<String, String> labels = sub.labels() == null ? Map.of() : Map.copyOf(sub.labels());
    long now = clock.millis();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < sub.count(); i++) {
      long seq = ++runSeq;
      String id = sub.runId() != null ? sub.runId() : runIdPrefix + seq;
      Run r =
          new Run(
              id,
              seq,
              sub.executor(),
              spec,
              digest,
              sub.timeoutMs(),
              key != null ? key : id,
              sub.workerId(),
              labels,
              now,
              now + sub.delayMs());
      runs.put(id, r);
      queue.put(seq, r);
      arrived.put(seq, r);
      ids.add(id);
    }
    log.event(
        "submit",
        "runs="
            + ids.size()
            + " first="
            + ids.get(0)
            + " executor="
            + sub.executor()
            + (sub.workerId() != null ? " worker=" + sub.workerId() : "")
            + (labels.isEmpty() ? "" : " labels=" + labels));
    settleParked(now);
    return new Views.SubmitResult(ids);
  }

  public enum CancelResult {
    CANCELLED,
    CANCEL_REQUESTED,
    ALREADY_FINISHED,
    UNKNOWN
  }

  /**
   * Cancels a queued run at once; a leased one is asked for through the holder's heartbeat
   * cancelRuns.
   */
  public synchronized CancelResult cancel(String runId) {
    Run r = runs.get(runId);
    if (r == null) {
      return CancelResult.UNKNOWN;
    }
    switch (r.state) {
      case QUEUED -> {
        queue.remove(r.seq);
        r.moveTo(RunState.CANCELLED);
        log.event("cancel", "run=" + runId + " (was queued)");
        return CancelResult.CANCELLED;
      }
      case LEASED -> {
        r.cancelRequested = true;
        log.event("cancel-requested", "run=" + runId + " session=" + r.lease.sessionId());
        return CancelResult.CANCEL_REQUESTED;
      }
      default -> {
        return CancelResult.ALREADY_FINISHED;
      }
    }
  }

  /**
   * Fences the worker's current session (its generation stops being current); false if it has none.
   */
  public synchronized boolean fenceWorker(String workerId) {
    Worker w = workers.get(workerId);
    if (w == null || w.current == null) {
      return false;
    }
    expireIfDue(w.current, clock.millis());
    w.generation++;
    recordGeneration(w);
    fence(w.current, "fenced by the admin");
    w.current = null;
    settleParked(clock.millis());
    return true;
  }

  /**
   * Starts the worker's generation counter at {@code generation} (the next register gets one more).
   * For tests and demos that need a history; refused once the worker has a session.
   */
  public synchronized void seedGeneration(String workerId, long generation) {
    Worker w = worker(workerId);
    if (!w.sessions.isEmpty() || generation < w.generation) {
      throw new IllegalStateException("worker " + workerId + " already has sessions");
    }
    w.generation = generation;
    recordGeneration(w);
  }

  public synchronized List<Views.RunView> runs() {
    List<Views.RunView> out = new ArrayList<>(runs.size());
    for (Run r : runs.values()) {
      out.add(view(r));
    }
    return out;
  }

  public synchronized Optional<Views.RunView> run(String runId) {
    Run r = runs.get(runId);
    return r == null ? Optional.empty() : Optional.of(view(r));
  }

  private static Views.RunView view(Run r) {
    Views.LeaseView lease =
        r.lease == null
            ? null
            : new Views.LeaseView(
                r.lease.workerId(), r.lease.sessionId(), r.lease.generation(), r.lease.attempt());
    return new Views.RunView(
        r.runId,
        r.state.name().toLowerCase(java.util.Locale.ROOT),
        r.executor,
        r.specDigest,
        r.timeoutMs,
        r.idempotencyKey,
        r.targetWorker,
        r.targetLabels,
        lease,
        r.state.terminal() || r.state == RunState.CANCELLED
            ? 0
            : r.state == RunState.LEASED ? r.lease.attempt() : r.nextAttempt(),
        r.cancelRequested,
        r.reclaims,
        r.outcome,
        r.completedBySession,
        r.completionBytes == null
            ? null
            : new String(r.completionBytes, java.nio.charset.StandardCharsets.UTF_8),
        r.submittedAt,
        r.completedAt);
  }

  public synchronized List<Views.WorkerView> workers() {
    long now = clock.millis();
    List<Views.WorkerView> out = new ArrayList<>();
    for (Worker w : workers.values()) {
      List<Views.SessionView> sessions = new ArrayList<>();
      for (Session s : w.sessions.values()) {
        List<String> leased = new ArrayList<>();
        for (Run r : s.leased) {
          leased.add(r.runId);
        }
        sessions.add(
            new Views.SessionView(
                s.sessionId,
                s.generation,
                s.status.wire(),
                s.fenced,
                s.statusAtFence == null ? null : s.statusAtFence.wire(),
                s.version,
                s.leaseExpiresAt,
                s.status.leased() ? Math.max(0, s.leaseExpiresAt - now) : 0,
                s.availableSlots,
                s.maxConcurrentRuns,
                s.capability.profile(),
                s.capability.executors(),
                s.capability.labels(),
                leased,
                s.registeredAt,
                s.lastBeatAt));
      }
      out.add(
          new Views.WorkerView(
              w.workerId, w.generation, w.current == null ? null : w.current.sessionId, sessions));
    }
    return out;
  }
}
