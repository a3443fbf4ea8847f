package io.ql3.worker.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.credentials.CredentialSet;
import io.ql3.worker.transport.credentials.Credentials;
import io.ql3.worker.transport.credentials.Token;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * The one connection to the ingress and the raw exchange layer (path + canonical body bytes in,
 * status + retry-after + capped body out). All state lives on one named event-loop thread.
 *
 * <p>Rules: a socket is opened only from {@link ConnectionState#IDLE}, which is entered only after
 * the previous socket's close completed, so two sockets never coexist. It is opened on demand (an
 * exchange is waiting) and after a failed connect or handshake only once the jittered exponential
 * backoff has elapsed. When the credential generation changes, the connection is replaced at the
 * next quiet moment (no exchange in flight; abortable parked pulls on h2 are aborted for it);
 * waiting exchanges then go out on the new connection.
 */
final class IngressConnection implements AutoCloseable {
  private static final Logger LOG = System.getLogger(IngressConnection.class.getName());

  private final MultiThreadIoEventLoopGroup group;
  private final EventLoop loop;
  private final IngressEndpoint endpoint;
  private final TransportSettings settings;
  private final CredentialProvider credentials;
  private final Backoff backoff;
  private final RequestHeaders headers;
  private final H2RequestHeaders h2Headers;
  private final TlsContexts contexts = new TlsContexts();

  // Event-loop confined.
  private ConnectionState state = ConnectionState.IDLE;
  private Channel channel;
  private String protocol;
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

  /** Bumped each time a backoff is scheduled, so that a superseded backoff timer does nothing. */
  private long backoffEpoch;

  /**
   * The server refused our certificate on an earlier connection: on the next h2 connection nothing
   * is sent before the server's SETTINGS prove it accepted us, so a repeated refusal reaches the
   * waiting requests unsent (credentials rejected) rather than outcome-unknown.
   */
  private boolean confirmBeforeSending;

  private boolean goingAway;
  private Http1ClientHandler h1;
  private ChannelHandlerContext h1Context;
  private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
  private final Set<Exchange> inFlight = new LinkedHashSet<>();
  private int consecutiveFailures;
  private long nextConnectAtNanos;
  private TransportFailure lastConnectFailure;
  private Throwable closeCause;
  private boolean pumpScheduled;

  /**
   * Requests handed over by other threads, taken by ONE event-loop task: a burst of requests (the
   * outbox's completions) becomes one pump, whose h2 streams share one flush (one TLS write).
   */
  private final ConcurrentLinkedQueue<Runnable> submissions = new ConcurrentLinkedQueue<>();

  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  /** True while {@link #drainSubmissions} runs: {@link #enqueue} leaves the pump to it. */
  private boolean draining;

  /** True while pump() opens h2 streams: a stream written then leaves the flush to pump(). */
  private boolean openingInPump;

  /** h2 streams written by pump() and not flushed yet. */
  private boolean unflushed;

  /**
   * Handshake-only probes ({@code check --connect}) waiting for the connection or its confirmation.
   */
  private final ArrayDeque<Probe> probes = new ArrayDeque<>();

  /** The server's h2 SETTINGS arrived on the current connection: it accepted our certificate. */
  private boolean serverSpoke;

  private final AtomicInteger connectionsOpened = new AtomicInteger();
  private final AtomicInteger openSockets = new AtomicInteger();
  private final AtomicInteger maxOpenSockets = new AtomicInteger();
  private volatile String negotiatedProtocol;

  IngressConnection(
      IngressEndpoint endpoint, TransportSettings settings, CredentialProvider credentials) {
    this(endpoint, settings, credentials, () -> ThreadLocalRandom.current().nextDouble());
  }

  IngressConnection(
      IngressEndpoint endpoint,
      TransportSettings settings,
      CredentialProvider credentials,
      DoubleSupplier jitter) {
    this.endpoint = endpoint;
    this.settings = settings;
    this.credentials = credentials;
    this.backoff = new Backoff(settings.backoffMin(), settings.backoffMax(), jitter);
    this.headers =
        new RequestHeaders(endpoint.authority(), "ql3-worker/" + settings.userAgentVersion());
    this.h2Headers = new H2RequestHeaders(headers);
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("ql3w-transport", true), NioIoHandler.newFactory());
    this.loop = group.next();
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
    submit(() -> enqueue(ex, deadline));
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

  private void drainSubmissions() {
    drainScheduled.set(false);
    draining = true;
    try {
      Runnable task;
      while ((task = submissions.poll()) != null) {
        task.run();
      }
    } finally {
      draining = false;
    }
    pump();
  }

  /** Aborts parked pulls (h2 only; an http/1.1 pull is never aborted, per the contract). */
  void abortPulls() {
    loop.execute(
        () -> {
          if (Http2StreamHandler.PROTOCOL.equals(protocol)) {
            for (Exchange ex : new ArrayList<>(inFlight)) {
              if (ex.abortable) {
                ex.fail(TransportFailure.Reason.ABORTED, "pull aborted", null);
              }
            }
          }
          for (Exchange ex : new ArrayList<>(waiting)) {
            if (ex.abortable) {
              waiting.remove(ex);
              ex.fail(TransportFailure.Reason.ABORTED, "pull aborted before it was sent", null);
            }
          }
        });
  }

  /** Number of sockets opened so far (each one TLS handshake). */
  int connectionsOpened() {
    return connectionsOpened.get();
  }

  /** The most sockets ever open at once (the one-connection rule says 1). */
  int maxOpenSockets() {
    return maxOpenSockets.get();
  }

  /** {@code h2} or {@code http/1.1} of the current or last connection, null before the first. */
  String protocol() {
    return negotiatedProtocol;
  }

  /**
   * Opens the connection (the same handshake, credentials and verification as every exchange) and
   * sends nothing: completes with what was negotiated once the server accepted our certificate (h2:
   * its SETTINGS arrived) or, when it says nothing (http/1.1 before a request), once {@code
   * confirmWithin} passed without a refusal. Fails with a {@link TransportFailure} (never sent)
   * when the connect, the handshake or the server refuses.
   */
  CompletableFuture<Handshake> handshake(Duration confirmWithin) {
    Probe p = new Probe(confirmWithin);
    loop.execute(
        () -> {
          if (state == ConnectionState.CLOSED) {
            p.promise.completeExceptionally(
                new TransportFailure(
                    TransportFailure.Reason.CLOSED, false, "transport closed", null));
            return;
          }
          probes.add(p);
          if (state == ConnectionState.READY) {
            probeConnected(p);
          } else {
            pump();
          }
        });
    return p.promise;
  }

  private void probeConnected(Probe p) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    javax.net.ssl.SSLSession s = tls.engine().getSession();
    p.facts = new Handshake(protocol, s.getProtocol(), s.getCipherSuite(), false);
    if (serverSpoke) {
      p.complete(true);
      return;
    }
    // An h2 server sends SETTINGS first thing (RFC 9113 §3.4): wait for them as long as for a
    // handshake. An http/1.1 server says nothing before a request: wait only for a refusal.
    Duration wait =
        Http2StreamHandler.PROTOCOL.equals(protocol)
            ? settings.handshakeTimeout()
            : p.confirmWithin;
    p.timer = loop.schedule(() -> p.complete(false), wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void failProbes(TransportFailure failure) {
    for (Probe p : new ArrayList<>(probes)) {
      p.fail(failure);
    }
  }

  /** One handshake-only request; event-loop confined except its promise. */
  private final class Probe {
    final CompletableFuture<Handshake> promise = new CompletableFuture<>();
    final Duration confirmWithin;
    Handshake facts;
    io.netty.util.concurrent.ScheduledFuture<?> timer;

    Probe(Duration confirmWithin) {
      this.confirmWithin = confirmWithin;
    }

    void complete(boolean confirmed) {
      probes.remove(this);
      if (timer != null) {
        timer.cancel(false);
      }
      promise.complete(
          new Handshake(facts.protocol(), facts.tlsVersion(), facts.cipherSuite(), confirmed));
    }

    void fail(TransportFailure failure) {
      probes.remove(this);
      if (timer != null) {
        timer.cancel(false);
      }
      promise.completeExceptionally(failure);
    }
  }

  private void enqueue(Exchange ex, Duration deadline) {
    if (state == ConnectionState.CLOSED) {
      ex.fail(TransportFailure.Reason.CLOSED, "transport closed", null);
      return;
    }
    if (consecutiveFailures > 0 && ex.credentialGeneration > failedGeneration) {
      // A credential file changed since the last failed connect: "at once" holds at the socket too.
      consecutiveFailures = 0;
      nextConnectAtNanos = System.nanoTime();
      if (state == ConnectionState.BACKOFF) {
        backoffEpoch++;
        state = state.to(ConnectionState.IDLE);
      }
    }
    ex.onDone(this::exchangeDone);
    ex.deadline =
        loop.schedule(() -> deadlineReached(ex), deadline.toNanos(), TimeUnit.NANOSECONDS);
    newestGeneration = Math.max(newestGeneration, ex.credentialGeneration);
    waiting.add(ex);
    if (!draining) {
      pump();
    }
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

  private void exchangeDone(Exchange ex) {
    inFlight.remove(ex);
    waiting.remove(ex);
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
    boolean wasInFlight = inFlight.contains(ex);
    ex.fail(
        TransportFailure.Reason.TIMEOUT,
        "no complete answer within the deadline",
        ex.sent ? null : lastConnectFailure);
    if (wasInFlight && h1 != null && channel != null) {
      closeCause = null;
      channel.close(); // an http/1.1 exchange cannot be cancelled without closing the connection
    }
  }

  private void pump() {
    switch (state) {
      case IDLE -> {
        if (waiting.isEmpty() && probes.isEmpty()) {
          return;
        }
        long wait = nextConnectAtNanos - System.nanoTime();
        if (consecutiveFailures > 0 && wait > 0) {
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
        if (targetGeneration() > channelGeneration || goingAway) {
          replaceAtQuietMoment();
          return;
        }
        if (h1 != null) {
          failLongPollsOnHttp1();
          if (!h1.busy() && inFlight.isEmpty() && !waiting.isEmpty()) {
            Exchange ex = waiting.poll();
            inFlight.add(ex);
            h1.send(h1Context, ex);
          }
        } else if (!confirmBeforeSending || serverSpoke) {
          openingInPump = true;
          try {
            while (!waiting.isEmpty()) {
              Exchange ex = waiting.poll();
              inFlight.add(ex);
              openStream(ex);
            }
          } finally {
            openingInPump = false;
            if (unflushed) {
              unflushed = false;
              channel.flush(); // every stream written above: one flush, one TLS write
            }
          }
        }
      }
      default -> {
        // BACKOFF, CONNECTING, CLOSING, CLOSED: a timer or listener calls pump() again
      }
    }
  }

  /**
   * A long poll never goes out on http/1.1: it would hold the one connection for its whole wait
   * (contract section 1). It fails here, before any byte of it is written, so the caller learns the
   * protocol of the connection this very try would have used and decides (docs/runtime.md).
   */
  private void failLongPollsOnHttp1() {
    for (Exchange ex : new ArrayList<>(waiting)) {
      if (ex.h2Only) {
        waiting.remove(ex);
        ex.fail(
            TransportFailure.Reason.HTTP1_CONNECTION,
            "a long poll is never sent on http/1.1",
            null);
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
    if (h1 == null && (goingAway || targetGeneration() > channelGeneration)) {
      String why =
          goingAway ? "the server sent GOAWAY" : "connection replaced for a credential rotation";
      for (Exchange ex : new ArrayList<>(inFlight)) {
        if (ex.abortable) {
          ex.fail(TransportFailure.Reason.ABORTED, why, null);
        }
      }
    }
    if (inFlight.isEmpty()) {
      LOG.log(
          Level.INFO,
          "closing the connection (credential generation {0} -> {1}{2})",
          channelGeneration,
          newestGeneration,
          goingAway ? ", server going away" : "");
      closeCause = null;
      state = state.to(ConnectionState.CLOSING);
      channel.close();
    }
  }

  private void connect() {
    state = state.to(ConnectionState.CONNECTING);
    CredentialSet set = credentials.checkNow().tls(); // the check before each handshake
    newestGeneration = Math.max(newestGeneration, set.generation());
    if (set.generation() == rejectedGeneration && newestRefused()) {
      // The server refused this generation: use the previous keys while they are valid, with
      // the newest trust bundle (never an older one).
      CredentialSet newest = set;
      set = credentials.previousStillValid().map(p -> p.withTrustOf(newest)).orElse(set);
    }
    javax.net.ssl.SSLContext ssl;
    try {
      ssl = contexts.contextFor(set);
    } catch (javax.net.ssl.SSLException e) {
      connectFailed(null, e);
      return;
    }
    channelGeneration = set.generation();
    goingAway = false;
    serverSpoke = false;
    closeCause = null;
    HttpProxy proxy = settings.proxy();
    Bootstrap b =
        new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (proxy != null) {
                      // CONNECT tunnel first; TLS (mTLS) then runs end to end through it.
                      HttpProxyHandler tunnel =
                          new HttpProxyHandler(new InetSocketAddress(proxy.host(), proxy.port()));
                      tunnel.setConnectTimeoutMillis(settings.connectTimeout().toMillis());
                      ch.pipeline().addLast("proxy", tunnel);
                    }
                    // The engine checks the certificate against the peer host (TlsContexts).
                    SslHandler tls =
                        new SslHandler(
                            TlsContexts.newEngine(ssl, endpoint.host(), endpoint.port()));
                    tls.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis());
                    ch.pipeline().addLast("tls", tls);
                    // The handshake promise fails before the close for every cause, the
                    // handshake timeout included (which raises no exception event).
                    tls.handshakeFuture()
                        .addListener(
                            h -> {
                              if (!h.isSuccess()) {
                                connectFailed(ch, h.cause());
                              }
                            });
                    ch.pipeline().addLast("tls-errors", new CauseRecorder());
                    // Holds back any application bytes decoded in the same read as the server's
                    // Finished until the protocol's handlers are in place, then replays them.
                    ch.pipeline().addLast("alpn", new ProtocolSelector(ch));
                    ch.pipeline().addLast("errors", new ErrorCatcher());
                  }
                });
    io.netty.channel.ChannelFuture cf;
    if (proxy == null) {
      cf = b.connect(endpoint.host(), endpoint.port());
    } else {
      // The proxy resolves the ingress name: the agent may not be able to.
      cf =
          b.resolver(NoopAddressResolverGroup.INSTANCE)
              .connect(InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port()));
    }
    Channel ch = cf.channel();
    channel = ch;
    connectionsOpened.incrementAndGet();
    maxOpenSockets.accumulateAndGet(openSockets.incrementAndGet(), Math::max);
    ch.closeFuture()
        .addListener(
            f -> {
              openSockets.decrementAndGet();
              loop.execute(() -> closed(ch));
            });
    cf.addListener(
        f -> {
          if (!f.isSuccess()) {
            connectFailed(ch, f.cause());
          }
        });
  }

  /**
   * Called by the {@link ProtocolSelector} once the handshake succeeded, before buffered bytes are
   * replayed.
   */
  private void handshakeDone(Channel ch, String alpn) {
    if (ch != channel || state != ConnectionState.CONNECTING || !ch.isActive()) {
      ch.close();
      return;
    }
    if (ApplicationProtocolNames.HTTP_2.equals(alpn)) {
      protocol = Http2StreamHandler.PROTOCOL;
      h1 = null;
      ch.pipeline()
          .addBefore(
              "errors",
              "h2",
              Http2FrameCodecBuilder.forClient()
                  .initialSettings(
                      Http2Settings.defaultSettings().pushEnabled(false).maxHeaderListSize(16384))
                  .build());
      ch.pipeline()
          .addBefore("errors", "h2-mux", new Http2MultiplexHandler(new RefusePushedStreams()));
      ch.pipeline().addBefore("errors", "h2-conn", new Http2ConnectionWatcher());
    } else {
      protocol = Http1ClientHandler.PROTOCOL;
      h1 = new Http1ClientHandler(headers);
      ch.pipeline().addBefore("errors", "h1-codec", new HttpClientCodec(4096, 8192, 8192));
      ch.pipeline().addBefore("errors", "h1", h1);
      h1Context = ch.pipeline().context(h1);
    }
    negotiatedProtocol = protocol;
    consecutiveFailures = 0;
    lastConnectFailure = null;
    state = state.to(ConnectionState.READY);
    LOG.log(
        Level.DEBUG, "connected with {0}, credential generation {1}", protocol, channelGeneration);
    for (Probe p : new ArrayList<>(probes)) {
      probeConnected(p);
    }
    schedulePump(); // after the selector replayed what it held back
  }

  /**
   * First report of a failed connect or handshake wins; later reports of the same attempt are
   * ignored.
   */
  private void connectFailed(Channel ch, Throwable cause) {
    if (ch != channel || state != ConnectionState.CONNECTING) {
      return;
    }
    recordConnectFailure(cause, false);
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

  /**
   * Nothing was sent: every waiting exchange learns the specific reason now; the next try waits out
   * the backoff.
   *
   * @param serverAuthenticated the handshake completed, so the server proved its identity: only
   *     then is an alert a refusal of our certificate. Before that, anyone on the path can inject a
   *     plaintext alert: it is a TLS failure, and nothing falls back because of it.
   */
  private void recordConnectFailure(Throwable cause, boolean serverAuthenticated) {
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
    failedGeneration = channelGeneration;
    if (failure.reason() == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED) {
      confirmBeforeSending = true;
      if (channelGeneration == newestGeneration && credentials.previousStillValid().isPresent()) {
        rejectedGeneration = channelGeneration;
        rejectedAtNanos = System.nanoTime();
        LOG.log(
            Level.ERROR,
            "the server rejected client certificate generation {0}; reconnecting with the"
                + " previous keys (and the newest trust bundle) while they are valid",
            channelGeneration);
      }
    }
    nextConnectAtNanos = System.nanoTime() + backoff.delayNanos(consecutiveFailures);
    LOG.log(
        Level.WARNING,
        "connection attempt {0} failed: {1}",
        consecutiveFailures,
        failure.getMessage());
    for (Exchange ex : new ArrayList<>(waiting)) {
      ex.fail(failure);
    }
    failProbes(failure);
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
    h1 = null;
    h1Context = null;
    protocol = null;
    TransportFailure.Reason reason =
        cause == null ? TransportFailure.Reason.RESET : FailureClassifier.classify(cause);
    for (Exchange ex : new ArrayList<>(inFlight)) {
      ex.fail(
          state == ConnectionState.CLOSED ? TransportFailure.Reason.CLOSED : reason,
          "connection closed",
          cause);
    }
    inFlight.clear();
    switch (state) {
      case CLOSED -> {
        failProbes(
            new TransportFailure(TransportFailure.Reason.CLOSED, false, "transport closed", null));
        return;
      }
      case CONNECTING -> {
        // closed before the handshake finished (and before its listener ran)
        recordConnectFailure(cause, false);
        state = state.to(ConnectionState.CLOSING);
      }
      case READY -> {
        if (reason == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED) {
          // TLS 1.3: the server's refusal of our certificate arrives after the handshake
          // "succeeded".
          recordConnectFailure(cause, true);
        }
        state = state.to(ConnectionState.CLOSING);
      }
      default -> {
        // CLOSING already
      }
    }
    // A probe still waiting for the server's confirmation: the server closed on us.
    failProbes(
        new TransportFailure(
            reason, false, "the server closed the connection after the handshake", cause));
    state = state.to(ConnectionState.IDLE);
    pump();
  }

  @Override
  public void close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          state = ConnectionState.CLOSED;
          for (Exchange ex : new ArrayList<>(waiting)) {
            ex.fail(TransportFailure.Reason.CLOSED, "transport closed", null);
          }
          for (Exchange ex : new ArrayList<>(inFlight)) {
            ex.fail(TransportFailure.Reason.CLOSED, "transport closed", null);
          }
          failProbes(
              new TransportFailure(
                  TransportFailure.Reason.CLOSED, false, "transport closed", null));
          if (channel != null) {
            channel.close().addListener(f -> done.complete(null));
          } else {
            done.complete(null);
          }
        });
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "transport close did not finish: {0}", e.toString());
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private void openStream(Exchange ex) {
    Channel parent = channel;
    new Http2StreamChannelBootstrap(parent)
        .handler(new Http2StreamHandler(ex))
        .open()
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ex.fail(TransportFailure.Reason.RESET, "cannot open an h2 stream", f.cause());
                return;
              }
              Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
              ex.stream = stream;
              if (ex.done()) {
                stream.close();
                return;
              }
              Http2Headers h = h2Headers.of(ex.path, ex.bearer, ex.body.length);
              ex.sent = true;
              stream.write(new DefaultHttp2HeadersFrame(h, false));
              stream
                  .write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(ex.body), true))
                  .addListener(
                      w -> {
                        if (!w.isSuccess()) {
                          ex.fail(FailureClassifier.classify(w.cause()), "write failed", w.cause());
                        }
                      });
              // Flushed by pump() once every waiting request is written; a stream opened later (its
              // open completed asynchronously) flushes itself.
              if (openingInPump) {
                unflushed = true;
              } else {
                stream.flush();
              }
            });
  }

  /** Chooses the pipeline by ALPN (none: http/1.1); a failed handshake is a connect failure. */
  private final class ProtocolSelector extends ApplicationProtocolNegotiationHandler {
    private final Channel ch;

    ProtocolSelector(Channel ch) {
      super(ApplicationProtocolNames.HTTP_1_1);
      this.ch = ch;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String fallback) {
      // Netty's SslHandler knows the chosen protocol only for engines made by its own SslContext.
      handshakeDone(ch, TlsContexts.negotiated(ctx.pipeline().get(SslHandler.class).engine()));
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
      connectFailed(ch, cause);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.fireExceptionCaught(cause); // the ErrorCatcher records and closes
    }
  }

  /** Right after the TLS handler: sees TLS alerts before any codec wraps or swallows them. */
  private final class CauseRecorder extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (ctx.channel() == channel && closeCause == null) {
        closeCause = cause;
      }
      ctx.fireExceptionCaught(cause);
    }
  }

  /** Last handler of the connection pipeline: remembers why the connection failed and closes it. */
  private final class ErrorCatcher extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (ctx.channel() == channel && closeCause == null) {
        closeCause = cause;
      }
      ctx.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg); // nothing reaches here in a healthy pipeline
    }
  }

  /**
   * Connection-level h2 frames: GOAWAY means no new streams; finish what is in flight, then
   * reconnect.
   */
  private final class Http2ConnectionWatcher extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2GoAwayFrame) {
          goingAway = true;
          schedulePump();
        } else if (msg instanceof Http2SettingsFrame && !serverSpoke) {
          // TLS 1.3: the server sends application data only after it accepted our
          // certificate and Finished, so its SETTINGS prove the handshake on both sides.
          serverSpoke = true;
          if (confirmBeforeSending) {
            confirmBeforeSending = false;
            schedulePump(); // the requests held back for this confirmation go out now
          }
          for (Probe p : new ArrayList<>(probes)) {
            if (p.facts != null) {
              p.complete(true);
            }
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.fireExceptionCaught(cause);
    }
  }

  /** Server push is disabled in our SETTINGS; a pushed stream is closed at once. */
  private static final class RefusePushedStreams extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      ctx.close();
    }
  }
}
