package io.ql3.worker.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.credentials.Credentials;
import io.ql3.worker.transport.credentials.Token;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;

/**
 * The one connection to the ingress and the raw exchange layer (path + canonical body bytes in,
 * status + retry-after + capped body out), callable from any thread. All state lives on one named
 * event-loop thread ({@code ql3w-transport}), in the {@link ConnectionStateMachine}, which keeps
 * the connection rules (one socket, ever; on demand; backoff; replacement at a quiet moment): this
 * class owns that thread and hands calls over to it, a burst of requests as one event-loop task.
 */
final class IngressConnection implements AutoCloseable {
  private static final Logger LOG = System.getLogger(IngressConnection.class.getName());

  private final MultiThreadIoEventLoopGroup group;
  private final EventLoop loop;
  private final CredentialProvider credentials;
  private final SocketCounts counts = new SocketCounts();
  private final ConnectionStateMachine machine;

  /**
   * Requests handed over by other threads, taken by ONE event-loop task: a burst of requests (the
   * outbox's completions) becomes one pump, whose h2 streams share one flush (one TLS write).
   */
  private final ConcurrentLinkedQueue<Runnable> submissions = new ConcurrentLinkedQueue<>();

  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  IngressConnection(
      IngressEndpoint endpoint, TransportSettings settings, CredentialProvider credentials) {
    this(endpoint, settings, credentials, () -> ThreadLocalRandom.current().nextDouble());
  }

  IngressConnection(
      IngressEndpoint endpoint,
      TransportSettings settings,
      CredentialProvider credentials,
      DoubleSupplier jitter) {
    this.credentials = credentials;
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("ql3w-transport", true), NioIoHandler.newFactory());
    this.loop = group.next();
    this.machine =
        new ConnectionStateMachine(loop, endpoint, settings, credentials, jitter, counts);
  }

  /**
   * Sends {@code body} to {@code path} and completes with the answer, or exceptionally with a
   * {@link TransportFailure} or a {@link CredentialException} (local: the token file is unusable,
   * nothing was sent). Completes on the transport thread.
   *
   * @param abortable a parked pull on h2 that may be aborted for a rotation or shutdown
   * @param h2Only a long poll: when the connection it would go out on speaks http/1.1 it fails
   *     {@link TransportFailure.Reason#HTTP1_CONNECTION} without being sent
   */
  CompletableFuture<RawResponse> exchange(
      String path,
      byte[] body,
      int responseCap,
      int errorCap,
      Duration deadline,
      boolean abortable,
      boolean h2Only) {
    Credentials creds = credentials.current();
    Token token;
    try {
      token = creds.requireToken();
    } catch (CredentialException e) {
      return CompletableFuture.failedFuture(e);
    }
    Exchange ex =
        new Exchange(
            path,
            body,
            responseCap,
            errorCap,
            abortable,
            h2Only,
            token.bearerValue(),
            creds.tls().generation());
    submit(() -> machine.enqueue(ex, deadline));
    return ex.promise;
  }

  /** Runs {@code task} on the event loop, batched with the other submissions waiting there. */
  private void submit(Runnable task) {
    submissions.add(task);
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        loop.execute(this::drainSubmissions);
      } catch (RuntimeException e) {
        drainScheduled.set(false);
        submissions.remove(task);
        throw e;
      }
    }
  }

  /** Takes every submission waiting, then pumps once for the whole burst. */
  private void drainSubmissions() {
    drainScheduled.set(false);
    Runnable task;
    while ((task = submissions.poll()) != null) {
      task.run();
    }
    machine.pump();
  }

  /** Aborts parked pulls (h2 only; an http/1.1 pull is never aborted, per the contract). */
  void abortPulls() {
    loop.execute(machine::abortPulls);
  }

  /** Number of sockets opened so far (each one TLS handshake). */
  int connectionsOpened() {
    return counts.connectionsOpened();
  }

  /** The most sockets ever open at once (the one-connection rule says 1). */
  int maxOpenSockets() {
    return counts.maxOpenSockets();
  }

  /** {@code h2} or {@code http/1.1} of the current or last connection, null before the first. */
  String protocol() {
    return counts.protocol();
  }

  /**
   * Opens the connection (the same handshake, credentials and verification as every exchange) and
   * sends nothing: completes with what was negotiated once the server accepted our certificate (h2:
   * its SETTINGS arrived) or, when it says nothing (http/1.1 before a request), once {@code
   * confirmWithin} passed without a refusal. Fails with a {@link TransportFailure} (never sent)
   * when the connect, the handshake or the server refuses.
   */
  CompletableFuture<Handshake> handshake(Duration confirmWithin) {
    HandshakeProbes.Probe p = new HandshakeProbes.Probe(confirmWithin);
    loop.execute(() -> machine.probe(p));
    return p.promise;
  }

  @Override
  public void close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(() -> machine.shutDown(done));
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "transport close did not finish: {0}", e.toString());
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
