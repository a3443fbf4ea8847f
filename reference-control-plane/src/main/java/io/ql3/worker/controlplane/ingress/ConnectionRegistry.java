package io.ql3.worker.controlplane.ingress;

import io.netty.channel.Channel;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every client connection, open and recently closed, with its proven identity; flags a worker
 * holding more than one connection at once. Thread-safe (own monitor).
 *
 * <p>A connection that has carried no request for a whole heartbeat interval when the same worker
 * opens another is taken as dead and closed, not flagged: after a silent partition (packets
 * dropped, no FIN or RST ever arrives) the client cannot tell the server its old connection is
 * gone, and a live client sends at least a heartbeat per interval.
 */
public final class ConnectionRegistry {
  private static final int CLOSED_KEPT = 1000;

  /** Admin view of one connection. {@code workerId} null: the certificate names no worker. */
  public record ConnectionView(
      long id,
      String workerId,
      String remote,
      String protocol,
      long openedAtMs,
      long closedAtMs,
      long requests) {}

  static final class Conn {
    final long id;
    final String workerId;
    final String remote;
    final String protocol;
    final long openedAt;
    final Channel channel;
    private final Clock clock;
    final AtomicLong requests = new AtomicLong();
    volatile long lastRequestAt;
    long closedAt;

    Conn(long id, String workerId, String remote, String protocol, Clock clock, Channel channel) {
      this(id, workerId, remote, protocol, clock.millis(), clock, channel);
    }

    private Conn(
        long id,
        String workerId,
        String remote,
        String protocol,
        long openedAt,
        Clock clock,
        Channel channel) {
      this.id = id;
      this.workerId = workerId;
      this.remote = remote;
      this.protocol = protocol;
      this.openedAt = openedAt;
      this.lastRequestAt = openedAt;
      this.clock = clock;
      this.channel = channel;
    }

    /** A request arrived on this connection. */
    void requested() {
      requests.incrementAndGet();
      lastRequestAt = clock.millis();
    }

    boolean h2() {
      return "h2".equals(protocol);
    }

    ConnectionView view() {
      return new ConnectionView(id, workerId, remote, protocol, openedAt, closedAt, requests.get());
    }
  }

  private final Clock clock;
  private final Auditor auditor;
  private final EventLog log;
  private final Map<Long, Conn> open = new LinkedHashMap<>();
  private final ArrayDeque<Conn> closed = new ArrayDeque<>();
  private long nextId;

  private final long staleAfterMs;

  /**
   * @param staleAfterMs the heartbeat interval: a connection silent that long is taken as dead
   */
  public ConnectionRegistry(Clock clock, Auditor auditor, EventLog log, long staleAfterMs) {
    this.clock = clock;
    this.auditor = auditor;
    this.log = log;
    this.staleAfterMs = staleAfterMs;
  }

  Conn opened(String workerId, String protocol, Channel channel) {
    Conn c;
    int others = 0;
    List<Conn> stale = new ArrayList<>();
    synchronized (this) {
      c =
          new Conn(
              ++nextId,
              workerId,
              String.valueOf(channel.remoteAddress()),
              protocol,
              clock,
              channel);
      long now = c.openedAt;
      if (workerId != null) {
        for (Conn o : open.values()) {
          if (workerId.equals(o.workerId)) {
            if (now - o.lastRequestAt >= staleAfterMs) {
              stale.add(o);
            } else {
              others++;
            }
          }
        }
      }
      open.put(c.id, c);
    }
    log.event(
        "connect",
        "conn=" + c.id + " worker=" + workerId + " protocol=" + protocol + " remote=" + c.remote);
    for (Conn o : stale) {
      log.event(
          "stale-connection",
          "conn="
              + o.id
              + " worker="
              + workerId
              + " closed: no request for "
              + (clock.millis() - o.lastRequestAt)
              + " ms when conn="
              + c.id
              + " opened");
      o.channel.close();
    }
    if (others > 0) {
      auditor.record(
          ViolationKind.CONCURRENT_CONNECTIONS,
          workerId,
          null,
          "connection "
              + c.id
              + " opened while "
              + others
              + " other connection(s) of this worker are open");
    }
    return c;
  }

  void closed(Conn c) {
    synchronized (this) {
      if (open.remove(c.id) == null) {
        return;
      }
      c.closedAt = clock.millis();
      closed.addLast(c);
      if (closed.size() > CLOSED_KEPT) {
        closed.removeFirst();
      }
    }
    log.event(
        "disconnect", "conn=" + c.id + " worker=" + c.workerId + " requests=" + c.requests.get());
  }

  public synchronized List<ConnectionView> open() {
    List<ConnectionView> out = new ArrayList<>();
    for (Conn c : open.values()) {
      out.add(c.view());
    }
    return out;
  }

  public synchronized List<ConnectionView> recentlyClosed() {
    List<ConnectionView> out = new ArrayList<>();
    for (Conn c : closed) {
      out.add(c.view());
    }
    return out;
  }

  /** Closes every open client connection (the close-connections fault). Returns how many. */
  public int closeAll() {
    List<Channel> channels = new ArrayList<>();
    synchronized (this) {
      for (Conn c : open.values()) {
        channels.add(c.channel);
      }
    }
    channels.forEach(Channel::close);
    log.event("close-connections", "closed " + channels.size() + " connection(s)");
    return channels.size();
  }
}
