package io.ql3.worker.transport;

import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.credentials.CredentialSet;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * Which credential generation (and so which SSLContext, one per generation) the connection uses:
 * the newest one seen, unless the server refused it lately while the previous one is still valid;
 * then the previous keys (with the newest trust bundle, never an older one) until the newest is
 * tried again. Event-loop confined.
 */
final class CredentialGenerations {
  private final CredentialProvider credentials;
  private final TransportSettings settings;

  /** One SSLContext per generation: TLS 1.3 resumption would otherwise skip the new keys. */
  private final TlsContexts contexts = new TlsContexts();

  /** The generation of the current (or last) connection. */
  private long channelGeneration;

  private long newestGeneration;

  /**
   * A generation the server refused while an older one is still valid: connect with the older one.
   */
  private long rejectedGeneration = -1;

  /**
   * When that refusal was counted: the newest generation is tried again {@link
   * #retryNewestAfterNanos} later.
   */
  private long rejectedAtNanos;

  /** The credential generation of the last failed connect: a newer one skips the backoff. */
  private long failedGeneration = -1;

  CredentialGenerations(CredentialProvider credentials, TransportSettings settings) {
    this.credentials = credentials;
    this.settings = settings;
  }

  long channelGeneration() {
    return channelGeneration;
  }

  long newestGeneration() {
    return newestGeneration;
  }

  /** An exchange carries {@code generation}: the newest is at least that. */
  void seen(long generation) {
    newestGeneration = Math.max(newestGeneration, generation);
  }

  /** True when {@code generation} is newer than the last failed connect's. */
  boolean newerThanFailed(long generation) {
    return generation > failedGeneration;
  }

  /** True when the connection should be replaced to use another generation. */
  boolean replacementDue() {
    return targetGeneration() > channelGeneration;
  }

  /**
   * The SSLContext of the next connection, after the check before each handshake: the newest
   * generation's, or, while the server refuses it, the previous keys with the newest trust bundle.
   * It becomes the connection's generation once its context is built.
   *
   * @throws SSLException when the context cannot be built (a TLS failure)
   */
  SSLContext nextContext() throws SSLException {
    CredentialSet set = credentials.checkNow().tls(); // the check before each handshake
    newestGeneration = Math.max(newestGeneration, set.generation());
    if (set.generation() == rejectedGeneration && newestRefused()) {
      // The server refused this generation: use the previous keys while they are valid, with
      // the newest trust bundle (never an older one).
      CredentialSet newest = set;
      set = credentials.previousStillValid().map(p -> p.withTrustOf(newest)).orElse(set);
    }
    SSLContext ssl = contexts.contextFor(set);
    channelGeneration = set.generation();
    return ssl;
  }

  /** The connect with the current generation failed. */
  void connectFailed() {
    failedGeneration = channelGeneration;
  }

  /**
   * The server refused our certificate. When that is the newest generation and the previous one is
   * still valid, the refusal is counted: the next connections use the previous keys.
   *
   * @return true when the refusal was counted
   */
  boolean certificateRefused() {
    if (channelGeneration == newestGeneration && credentials.previousStillValid().isPresent()) {
      rejectedGeneration = channelGeneration;
      rejectedAtNanos = System.nanoTime();
      return true;
    }
    return false;
  }

  /**
   * How long a refused newest generation is left alone before it is tried again: five reconnect
   * backoff bounds (5 minutes by default), so a server that starts accepting it is noticed, and a
   * server that keeps refusing costs one refused connection per period.
   */
  private long retryNewestAfterNanos() {
    return settings.backoffMax().toNanos() * 5;
  }

  /** The generation the connection should use: the newest, unless the server refused it lately. */
  private long targetGeneration() {
    return newestRefused() ? channelGeneration : newestGeneration;
  }

  private boolean newestRefused() {
    return newestGeneration == rejectedGeneration
        && System.nanoTime() - rejectedAtNanos < retryNewestAfterNanos();
  }
}
