package io.ql3.worker.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * Handshake-only probes ({@code check --connect}) waiting for the connection, then for the server's
 * confirmation that it accepted our certificate: h2 SETTINGS, or (http/1.1, whose server says
 * nothing before a request) no refusal within the probe's wait. Each completes with what was
 * negotiated, or fails with the connection's failure. Event-loop confined except the promises.
 */
final class HandshakeProbes {
  private final ArrayDeque<Probe> probes = new ArrayDeque<>();
  private final EventLoop loop;
  private final TransportSettings settings;

  HandshakeProbes(EventLoop loop, TransportSettings settings) {
    this.loop = loop;
    this.settings = settings;
  }

  void add(Probe p) {
    probes.add(p);
  }

  boolean isEmpty() {
    return probes.isEmpty();
  }

  /** The connection is ready: every waiting probe learns its facts and waits for confirmation. */
  void connectedAll(Channel channel, String protocol, boolean serverSpoke) {
    for (Probe p : new ArrayList<>(probes)) {
      connected(p, channel, protocol, serverSpoke);
    }
  }

  /**
   * {@code p} has its connection: it completes at once when the server already spoke, otherwise
   * after the server's SETTINGS ({@link #confirmed}) or its wait.
   */
  void connected(Probe p, Channel channel, String protocol, boolean serverSpoke) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    SSLSession s = tls.engine().getSession();
    p.facts = new Handshake(protocol, s.getProtocol(), s.getCipherSuite(), false);
    if (serverSpoke) {
      complete(p, true);
      return;
    }
    // An h2 server sends SETTINGS first thing (RFC 9113 §3.4): wait for them as long as for a
    // handshake. An http/1.1 server says nothing before a request: wait only for a refusal.
    Duration wait =
        Http2Client.PROTOCOL.equals(protocol) ? settings.handshakeTimeout() : p.confirmWithin;
    p.timer = loop.schedule(() -> complete(p, false), wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The server's SETTINGS arrived: every probe that has its connection completes, confirmed. */
  void confirmed() {
    for (Probe p : new ArrayList<>(probes)) {
      if (p.facts != null) {
        complete(p, true);
      }
    }
  }

  /** The connection failed, or the transport closed: every probe fails with {@code failure}. */
  void failAll(TransportFailure failure) {
    for (Probe p : new ArrayList<>(probes)) {
      fail(p, failure);
    }
  }

  private void complete(Probe p, boolean confirmed) {
    probes.remove(p);
    if (p.timer != null) {
      p.timer.cancel(false);
    }
    Handshake facts = p.facts;
    p.promise.complete(
        new Handshake(facts.protocol(), facts.tlsVersion(), facts.cipherSuite(), confirmed));
  }

  private void fail(Probe p, TransportFailure failure) {
    probes.remove(p);
    if (p.timer != null) {
      p.timer.cancel(false);
    }
    p.promise.completeExceptionally(failure);
  }

  /** One handshake-only request; event-loop confined except its promise. */
  static final class Probe {
    final CompletableFuture<Handshake> promise = new CompletableFuture<>();
    final Duration confirmWithin;
    Handshake facts;
    ScheduledFuture<?> timer;

    Probe(Duration confirmWithin) {
      this.confirmWithin = confirmWithin;
    }
  }
}
