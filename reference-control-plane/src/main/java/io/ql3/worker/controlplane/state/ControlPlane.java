package io.ql3.worker.controlplane.state;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The server's state and the rules of contract sections 4 and 5: generations, sessions (version,
 * status, lease on the injected clock), replay, fencing, the run queue, offers, reclaim and
 * completions. This class is the facade and the lock; each job is a package-private helper it owns:
 * {@link SessionTable} (workers, sessions, generation counters), {@link SessionRules} (the shared
 * session checks, expiry, fencing), {@link SessionRequests} (register, heartbeat, transition),
 * {@link PullRequests} (pull), {@link RunBook} (runs and the queue: submit, lease, reclaim,
 * complete, cancel), {@link Offers} (which queued runs a session can take), {@link ParkedPulls}
 * (parked long polls and waking them, fed by {@link PendingWakes}) and {@link Answers} (shared
 * answer bodies).
 *
 * <p>Concurrency: every public method runs under this object's monitor (one lock for all state);
 * the helpers hold no lock of their own and are only called from here, under it. Calls are short
 * (no I/O, except recording a new generation when a {@link GenerationFile} is given); parked pulls
 * are answered through {@link PullWaiter#deliver}, which implementations must only hand off to
 * their own thread. Time comes only from the {@link Clock}: tests drive it by hand.
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

  public enum CancelResult {
    CANCELLED,
    CANCEL_REQUESTED,
    ALREADY_FINISHED,
    UNKNOWN
  }

  private final Clock clock;
  private final Settings settings;
  private final Auditor auditor;

  private final SessionTable sessions;
  private final SessionRules rules;
  private final SessionRequests sessionRequests;
  private final RunBook runs;
  private final ParkedPulls parked;
  private final PullRequests pulls;

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
    this.clock = clock;
    this.settings = settings;
    this.auditor = auditor;
    PendingWakes wakes = new PendingWakes();
    Answers answers = new Answers(wire);
    this.sessions = new SessionTable(auditor, generations);
    this.runs = new RunBook(clock, wire, log, answers, sessions, wakes);
    Offers offers = new Offers(settings, wire, log, runs);
    this.rules = new SessionRules(clock, settings, auditor, log, sessions, runs, answers, wakes);
    this.parked = new ParkedPulls(rules, offers, answers, wakes);
    this.pulls =
        new PullRequests(
            clock, settings, wire, auditor, log, sessions, rules, offers, parked, answers);
    this.sessionRequests =
        new SessionRequests(
            clock, settings, wire, auditor, log, sessions, rules, runs, offers, parked, answers,
            wakes);
  }

  public Settings settings() {
    return settings;
  }

  public Auditor auditor() {
    return auditor;
  }

  // ---------------------------------------------------------------- session requests

  public synchronized Reply register(
      String workerId, String sessionId, byte[] body, Commands.Register cmd) {
    return sessionRequests.register(workerId, sessionId, body, cmd);
  }

  public synchronized Reply heartbeat(
      String workerId, String sessionId, byte[] body, Commands.Heartbeat cmd) {
    Reply result = sessionRequests.heartbeat(workerId, sessionId, body, cmd);
    parked.settleParked(clock.millis());
    return result;
  }

  public synchronized Reply transition(
      String workerId, String sessionId, byte[] body, Commands.Transition cmd) {
    Reply result = sessionRequests.transition(workerId, sessionId, body, cmd);
    parked.settleParked(clock.millis());
    return result;
  }

  /** A register/heartbeat/transition of this worker starts; records an overlap violation. */
  public synchronized void sessionRequestStarted(
      String workerId, String sessionId, String operation) {
    sessions.sessionRequestStarted(workerId, sessionId, operation);
  }

  public synchronized void sessionRequestEnded(String workerId) {
    sessions.sessionRequestEnded(workerId);
  }

  /**
   * The ingress refused this worker's bearer token (401): see {@link
   * Worker#credentialsRefusedSinceBeat}.
   */
  public synchronized void credentialsRefused(String workerId) {
    sessions.credentialsRefused(workerId);
  }

  // ---------------------------------------------------------------- pull

  public synchronized PullResult pull(
      String workerId, String sessionId, Commands.Pull cmd, PullWaiter waiter) {
    PullResult result = pulls.pull(workerId, sessionId, cmd, waiter);
    parked.settleParked(clock.millis());
    return result;
  }

  /** The long poll's time is up: the empty answer, or null when the pull was answered meanwhile. */
  public synchronized Reply parkTimedOut(Object handle) {
    Reply result = pulls.parkTimedOut(handle);
    parked.settleParked(clock.millis());
    return result;
  }

  /** The client went away (stream reset, connection closed): forget the parked pull. */
  public synchronized void parkAbandoned(Object handle) {
    parked.unpark((ParkedPull) handle);
  }

  public synchronized int parkedCount() {
    return parked.count();
  }

  // ---------------------------------------------------------------- complete

  public synchronized Reply complete(
      String workerId, String sessionId, String runId, byte[] body, Commands.Complete cmd) {
    Reply result = runs.complete(workerId, sessionId, runId, body, cmd);
    parked.settleParked(clock.millis());
    return result;
  }

  // ---------------------------------------------------------------- admin

  /**
   * Expires every lapsed lease now (reclaiming runs); called periodically and before admin reads.
   */
  public synchronized void sweep() {
    long now = clock.millis();
    rules.expireAllDue(now);
    parked.settleParked(now);
  }

  public synchronized Views.SubmitResult submit(RunSubmission sub) {
    long now = clock.millis();
    Views.SubmitResult result = runs.submit(sub, now);
    parked.settleParked(now);
    return result;
  }

  /**
   * Cancels a queued run at once; a leased one is asked for through the holder's heartbeat
   * cancelRuns.
   */
  public synchronized CancelResult cancel(String runId) {
    return runs.cancel(runId);
  }

  /**
   * Fences the worker's current session (its generation stops being current); false if it has none.
   */
  public synchronized boolean fenceWorker(String workerId) {
    if (!rules.fenceWorker(workerId)) {
      return false;
    }
    parked.settleParked(clock.millis());
    return true;
  }

  /**
   * Starts the worker's generation counter at {@code generation} (the next register gets one more).
   * For tests and demos that need a history; refused once the worker has a session.
   */
  public synchronized void seedGeneration(String workerId, long generation) {
    sessions.seedGeneration(workerId, generation);
  }

  public synchronized List<Views.RunView> runs() {
    return runs.views();
  }

  public synchronized Optional<Views.RunView> run(String runId) {
    return runs.view(runId);
  }

  public synchronized List<Views.WorkerView> workers() {
    return sessions.views(clock.millis());
  }
}
