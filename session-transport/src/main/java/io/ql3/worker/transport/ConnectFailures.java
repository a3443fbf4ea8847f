package io.ql3.worker.transport;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Failed connects and handshakes in a row: each one is classified and logged, what waited for the
 * connection fails with it at once (nothing was sent), and the next connect waits out the jittered
 * backoff. After the server refused our certificate, the next h2 connection sends nothing before
 * the server confirmed it accepted us. Event-loop confined.
 */
final class ConnectFailures {
  /** The connection's events keep the connection's logger name. */
  private static final Logger LOG = System.getLogger(IngressConnection.class.getName());

  private final IngressEndpoint endpoint;
  private final Backoff backoff;
  private final CredentialGenerations generations;
  private final Exchanges exchanges;
  private final HandshakeProbes probes;

  private int consecutiveFailures;
  private long nextConnectAtNanos;
  private TransportFailure lastConnectFailure;

  /**
   * The server refused our certificate on an earlier connection: on the next h2 connection nothing
   * is sent before the server's SETTINGS prove it accepted us, so a repeated refusal reaches the
   * waiting requests unsent (credentials rejected) rather than outcome-unknown.
   */
  private boolean confirmBeforeSending;

  ConnectFailures(
      IngressEndpoint endpoint,
      Backoff backoff,
      CredentialGenerations generations,
      Exchanges exchanges,
      HandshakeProbes probes) {
    this.endpoint = endpoint;
    this.backoff = backoff;
    this.generations = generations;
    this.exchanges = exchanges;
    this.probes = probes;
  }

  /**
   * Nothing was sent: every waiting exchange learns the specific reason now; the next try waits out
   * the backoff.
   *
   * @param serverAuthenticated the handshake completed, so the server proved its identity: only
   *     then is an alert a refusal of our certificate. Before that, anyone on the path can inject a
   *     plaintext alert: it is a TLS failure, and nothing falls back because of it.
   */
  void record(Throwable cause, boolean serverAuthenticated) {
    TransportFailure.Reason reason =
        cause == null ? TransportFailure.Reason.RESET : FailureClassifier.classify(cause);
    if (reason == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED && !serverAuthenticated) {
      reason = TransportFailure.Reason.TLS_FAILURE;
    }
    TransportFailure failure =
        new TransportFailure(
            reason, false, "cannot connect to " + endpoint.host() + ":" + endpoint.port(), cause);
    lastConnectFailure = failure;
    consecutiveFailures++;
    generations.connectFailed();
    if (failure.reason() == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED) {
      confirmBeforeSending = true;
      if (generations.certificateRefused()) {
        LOG.log(
            Level.ERROR,
            "the server rejected client certificate generation {0}; reconnecting with the"
                + " previous keys (and the newest trust bundle) while they are valid",
            generations.channelGeneration());
      }
    }
    nextConnectAtNanos = System.nanoTime() + backoff.delayNanos(consecutiveFailures);
    LOG.log(
        Level.WARNING,
        "connection attempt {0} failed: {1}",
        consecutiveFailures,
        failure.getMessage());
    exchanges.failWaiting(failure);
    probes.failAll(failure);
  }

  /** A handshake succeeded: the run of failures ends. */
  void connected() {
    consecutiveFailures = 0;
    lastConnectFailure = null;
  }

  /**
   * An exchange with credential generation {@code generation} arrived: when a credential file
   * changed since the last failed connect, the next connect happens at once ("at once" holds at the
   * socket too).
   *
   * @return true when the backoff was dropped
   */
  boolean skipBackoffFor(long generation) {
    if (consecutiveFailures > 0 && generations.newerThanFailed(generation)) {
      consecutiveFailures = 0;
      nextConnectAtNanos = System.nanoTime();
      return true;
    }
    return false;
  }

  /** How long the next connect must still wait: positive only after a failure. */
  long backoffLeftNanos() {
    long wait = nextConnectAtNanos - System.nanoTime();
    return consecutiveFailures > 0 ? wait : 0;
  }

  /** The last failed connect's failure while the run lasts, else null. */
  TransportFailure last() {
    return lastConnectFailure;
  }

  /** True when requests on h2 wait for the server's SETTINGS before they are sent. */
  boolean confirmBeforeSending() {
    return confirmBeforeSending;
  }

  /**
   * The server's SETTINGS arrived: it accepted us.
   *
   * @return true when requests were held back for that confirmation
   */
  boolean confirmedByServer() {
    if (confirmBeforeSending) {
      confirmBeforeSending = false;
      return true;
    }
    return false;
  }
}
