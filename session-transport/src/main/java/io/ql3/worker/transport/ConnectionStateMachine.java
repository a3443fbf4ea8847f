package io.ql3.worker.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The one socket's state machine ({@link ConnectionState}) and the exchanges it carries; every
 * method runs on the transport's event loop ({@link IngressConnection} hands work over to it).
 *
 * <p>Rules: a socket is opened only from {@link ConnectionState#IDLE}, which is entered only after
 * the previous socket's close completed, so two sockets never coexist. It is opened on demand (an
 * exchange or a probe is waiting) and after a failed connect or handshake only once the backoff
 * ({@link ConnectFailures}) has elapsed. When the credential generation changes ({@link
 * CredentialGenerations}), or the server sent GOAWAY, the connection is replaced at the next quiet
 * moment (no exchange in flight; abortable parked pulls on h2 are aborted for it); waiting
 * exchanges then go out on the new connection. The socket's pipeline ({@link ConnectionPipeline})
 * reports back through {@link ConnectionEvents}.
 */
final class ConnectionStateMachine implements ConnectionEvents {
  /** The connection's events keep the connection's logger name. */
  private static final Logger LOG = System.getLogger(IngressConnection.class.getName());

  private final EventLoop loop;
  private final RequestHeaders headers;
  private final ConnectionPipeline pipeline;
  private final CredentialGenerations generations;
  private final Exchanges exchanges = new Exchanges();
  private final Http2Requests h2Requests;
  private final HandshakeProbes probes;
  private final ConnectFailures failures;

  private ConnectionState state = ConnectionState.IDLE;
  private Channel channel;
  private String protocol;

  /** Bumped each time a backoff is scheduled, so that a superseded backoff timer does nothing. */
  private long backoffEpoch;

  private boolean goingAway;
  private Http2Client h2;
  private Http1ClientHandler h1;
  private ChannelHandlerContext h1Context;
  private Throwable closeCause;
  private boolean pumpScheduled;

  /** The server's h2 SETTINGS arrived on the current connection: it accepted our certificate. */
  private boolean serverSpoke;

  private final SocketCounts counts;

  ConnectionStateMachine(
      EventLoop loop,
      IngressEndpoint endpoint,
      TransportSettings settings,
      CredentialProvider credentials,
      DoubleSupplier jitter,
      SocketCounts counts) {
    this.loop = loop;
    this.counts = counts;
    this.headers =
        new RequestHeaders(endpoint.authority(), "ql3-worker/" + settings.userAgentVersion());
    this.h2Requests = new Http2Requests(new H2RequestHeaders(headers));
    this.generations = new CredentialGenerations(credentials, settings);
    this.pipeline = new ConnectionPipeline(loop, endpoint, settings, this);
    this.probes = new HandshakeProbes(loop, settings);
    this.failures =
        new ConnectFailures(
            endpoint,
            new Backoff(settings.backoffMin(), settings.backoffMax(), jitter),
            generations,
            exchanges,
            probes);
  }

  /**
   * Takes a submitted exchange; the caller pumps once the burst it came in was taken ({@link
   * IngressConnection}).
   */
  void enqueue(Exchange ex, Duration deadline) {
    if (state == ConnectionState.CLOSED) {
      ex.fail(TransportFailure.Reason.CLOSED, "transport closed", null);
      return;
    }
    // A credential file changed since the last failed connect: "at once" holds at the socket too.
    if (failures.skipBackoffFor(ex.credentialGeneration) && state == ConnectionState.BACKOFF) {
      backoffEpoch++;
      state = state.to(ConnectionState.IDLE);
    }
    ex.onDone(this::exchangeDone);
    ex.deadline =
        loop.schedule(() -> deadlineReached(ex), deadline.toNanos(), TimeUnit.NANOSECONDS);
    generations.seen(ex.credentialGeneration);
    exchanges.add(ex);
  }

  /** Aborts parked pulls (h2 only; an http/1.1 pull is never aborted, per the contract). */
  void abortPulls() {
    exchanges.abortPulls(Http2Client.PROTOCOL.equals(protocol));
  }

  /** {@code p} waits for the connection (opened for it if needed) and its confirmation. */
  void probe(HandshakeProbes.Probe p) {
    if (state == ConnectionState.CLOSED) {
      p.promise.completeExceptionally(
          new TransportFailure(TransportFailure.Reason.CLOSED, false, "transport closed", null));
      return;
    }
    probes.add(p);
    if (state == ConnectionState.READY) {
      probes.connected(p, channel, protocol, serverSpoke);
    } else {
      pump();
    }
  }

  /**
   * The transport closes: everything waiting or in flight fails, and {@code done} completes once
   * the socket (if any) is closed.
   */
  void shutDown(CompletableFuture<Void> done) {
    state = ConnectionState.CLOSED;
    exchanges.failAll(TransportFailure.Reason.CLOSED, "transport closed");
    probes.failAll(
        new TransportFailure(TransportFailure.Reason.CLOSED, false, "transport closed", null));
    if (channel != null) {
      channel.close().addListener(f -> done.complete(null));
    } else {
      done.complete(null);
    }
  }

  private void exchangeDone(Exchange ex) {
    exchanges.done(ex);
    schedulePump();
  }

  private void schedulePump() {
    if (!pumpScheduled) {
      pumpScheduled = true;
      loop.execute(
          () -> {
            pumpScheduled = false;
            pump();
          });
    }
  }

  private void deadlineReached(Exchange ex) {
    if (ex.done()) {
      return;
    }
    boolean wasInFlight = exchanges.isInFlight(ex);
    ex.fail(
        TransportFailure.Reason.TIMEOUT,
        "no complete answer within the deadline",
        ex.sent ? null : failures.last());
    if (wasInFlight && h1 != null && channel != null) {
      closeCause = null;
      channel.close(); // an http/1.1 exchange cannot be cancelled without closing the connection
    }
  }

  /** Moves the state machine on: connects, waits, sends or replaces, as the state calls for. */
  void pump() {
    switch (state) {
      case IDLE -> {
        if (!exchanges.anyWaiting() && probes.isEmpty()) {
          return;
        }
        long wait = failures.backoffLeftNanos();
        if (wait > 0) {
          state = state.to(ConnectionState.BACKOFF);
          long epoch = ++backoffEpoch;
          loop.schedule(
              () -> {
                if (state == ConnectionState.BACKOFF && epoch == backoffEpoch) {
                  state = state.to(ConnectionState.IDLE);
                  pump();
                }
              },
              wait,
              TimeUnit.NANOSECONDS);
        } else {
          connect();
        }
      }
      case READY -> {
        if (!channel.isActive()) {
          return; // the close listener takes over
        }
        if (generations.replacementDue() || goingAway) {
          replaceAtQuietMoment();
          return;
        }
        if (h1 != null) {
          exchanges.failLongPollsOnHttp1();
          if (!h1.busy() && exchanges.noneInFlight() && exchanges.anyWaiting()) {
            h1.send(h1Context, exchanges.nextToSend());
          }
        } else if (!failures.confirmBeforeSending() || serverSpoke) {
          h2Requests.sendAll(h2, exchanges);
        }
      }
      default -> {
        // BACKOFF, CONNECTING, CLOSING, CLOSED: a timer or listener calls pump() again
      }
    }
  }

  /**
   * Break-before-make: wait for no exchange in flight, then close. Parked h2 pulls are aborted to
   * get there (outcome unknown: resent later with the same bytes, and the server's pullId replay
   * returns what it had leased), both for a rotation and after a GOAWAY: a server going away
   * finishes the other streams it accepted, which are awaited, but a parked pull may be held for
   * its whole wait (or until the server's graceful-close timeout), and no new connection may open
   * before this one is closed.
   */
  private void replaceAtQuietMoment() {
    if (h1 == null && (goingAway || generations.replacementDue())) {
      String why =
          goingAway ? "the server sent GOAWAY" : "connection replaced for a credential rotation";
      exchanges.abortPullsInFlight(why);
    }
    if (exchanges.noneInFlight()) {
      LOG.log(
          Level.INFO,
          "closing the connection (credential generation {0} -> {1}{2})",
          generations.channelGeneration(),
          generations.newestGeneration(),
          goingAway ? ", server going away" : "");
      closeCause = null;
      state = state.to(ConnectionState.CLOSING);
      channel.close();
    }
  }

  private void connect() {
    state = state.to(ConnectionState.CONNECTING);
    SSLContext ssl;
    try {
      ssl = generations.nextContext();
    } catch (SSLException e) {
      connectFailed(null, e);
      return;
    }
    goingAway = false;
    serverSpoke = false;
    closeCause = null;
    ChannelFuture cf = pipeline.connect(ssl);
    Channel ch = cf.channel();
    channel = ch;
    counts.opened();
    ch.closeFuture()
        .addListener(
            f -> {
              counts.closed();
              loop.execute(() -> closed(ch));
            });
    cf.addListener(
        f -> {
          if (!f.isSuccess()) {
            connectFailed(ch, f.cause());
          }
        });
  }

  @Override
  public void handshakeDone(Channel ch, String alpn) {
    if (ch != channel || state != ConnectionState.CONNECTING || !ch.isActive()) {
      ch.close();
      return;
    }
    if (ApplicationProtocolNames.HTTP_2.equals(alpn)) {
      protocol = Http2Client.PROTOCOL;
      h1 = null;
      h2 = pipeline.addHttp2(ch);
    } else {
      protocol = Http1ClientHandler.PROTOCOL;
      h2 = null;
      h1 = new Http1ClientHandler(headers);
      h1Context = pipeline.addHttp1(ch, h1);
    }
    counts.negotiated(protocol);
    failures.connected();
    state = state.to(ConnectionState.READY);
    LOG.log(
        Level.DEBUG,
        "connected with {0}, credential generation {1}",
        protocol,
        generations.channelGeneration());
    probes.connectedAll(ch, protocol, serverSpoke);
    schedulePump(); // after the selector replayed what it held back
  }

  @Override
  public void connectFailed(Channel ch, Throwable cause) {
    if (ch != channel || state != ConnectionState.CONNECTING) {
      return;
    }
    failures.record(cause, false);
    if (ch == null) {
      state = state.to(ConnectionState.IDLE);
      schedulePump();
      return;
    }
    if (state == ConnectionState.CONNECTING) {
      state = state.to(ConnectionState.CLOSING);
    }
    ch.close();
  }

  @Override
  public void failureSeen(Channel ch, Throwable cause) {
    if (ch == channel && closeCause == null) {
      closeCause = cause;
    }
  }

  @Override
  public void goAwayReceived() {
    goingAway = true;
    schedulePump();
  }

  @Override
  public void settingsReceived() {
    if (serverSpoke) {
      return;
    }
    // TLS 1.3: the server sends application data only after it accepted our
    // certificate and Finished, so its SETTINGS prove the handshake on both sides.
    serverSpoke = true;
    if (failures.confirmedByServer()) {
      schedulePump(); // the requests held back for this confirmation go out now
    }
    probes.confirmed();
  }

  /**
   * Runs after the close and after the exception that caused it went through the pipeline (the
   * listener defers to here), so the recorded cause classifies the in-flight exchanges.
   */
  private void closed(Channel ch) {
    if (ch != channel) {
      return;
    }
    Throwable cause = closeCause;
    channel = null;
    h2 = null;
    h1 = null;
    h1Context = null;
    protocol = null;
    TransportFailure.Reason reason =
        cause == null ? TransportFailure.Reason.RESET : FailureClassifier.classify(cause);
    exchanges.failInFlight(
        state == ConnectionState.CLOSED ? TransportFailure.Reason.CLOSED : reason,
        "connection closed",
        cause);
    switch (state) {
      case CLOSED -> {
        probes.failAll(
            new TransportFailure(TransportFailure.Reason.CLOSED, false, "transport closed", null));
        return;
      }
      case CONNECTING -> {
        // closed before the handshake finished (and before its listener ran)
        failures.record(cause, false);
        state = state.to(ConnectionState.CLOSING);
      }
      case READY -> {
        if (reason == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED) {
          // TLS 1.3: the server's refusal of our certificate arrives after the handshake
          // "succeeded".
          failures.record(cause, true);
        }
        state = state.to(ConnectionState.CLOSING);
      }
      default -> {
        // CLOSING already
      }
    }
    // A probe still waiting for the server's confirmation: the server closed on us.
    probes.failAll(
        new TransportFailure(
            reason, false, "the server closed the connection after the handshake", cause));
    state = state.to(ConnectionState.IDLE);
    pump();
  }
}
