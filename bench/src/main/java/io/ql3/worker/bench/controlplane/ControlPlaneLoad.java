package io.ql3.worker.bench.controlplane;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.pki.PemFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Netty h2 load client for the reference control plane (a benchmark, not a test). Every simulated
 * worker has its own certificate, token and one TLS 1.3 h2 connection, and follows the contract
 * (one session request at a time per worker, versions in order). It is kept cheap because it shares
 * the machine with the server: requests are written straight through the HTTP/2 codec (no child
 * channel per stream), and the heartbeat body is pre-encoded with only its version spliced in
 * (checked against the contract's serializer at register). Every counted heartbeat is a 200 whose
 * body the contract's strict parser accepts, carrying the next version.
 *
 * <pre>
 * heartbeat mode: W workers register, then each sends its next heartbeat as soon as the previous answer
 *                 arrived, for S seconds after a warm-up; prints answers/s and the latency distribution.
 * longpoll mode:  W workers register and each parks one pull (waitMs 60000); prints how many the server
 *                 holds (admin /connections), then submits W runs and measures until every pull got its offer.
 * </pre>
 *
 * Usage: {@code ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS]
 * [WARMUP] [THREADS] [SERVER_PID] [WINDOWS]}: WINDOWS measurement windows of SECONDS each, back to
 * back after one warm-up. Workers are {@code load-0000…}; missing ones are added to PKI_DIR with
 * {@link DevPki} (the server reads token files per request, so a running server accepts them at
 * once).
 */
public final class ControlPlaneLoad {
  private static final Uuid7Generator IDS =
      new Uuid7Generator(System::currentTimeMillis, new Random());

  private static String serverPid;
  private final SocketTransport transport;
  private final EventLoopGroup group;
  private final Path pki;
  private final int port;

  private ControlPlaneLoad(Path pki, int port, int threads) {
    this.pki = pki;
    this.port = port;
    this.authority = AsciiString.of("127.0.0.1:" + port);
    this.transport =
        SocketTransport.parse(System.getProperty("ql3.load.transport", "auto")).resolve();
    this.group =
        new MultiThreadIoEventLoopGroup(
            threads, new DefaultThreadFactory("load-io"), transport.ioHandlerFactory());
  }

  /** One answer: status and body bytes. */
  record Answer(int status, byte[] body) {}

  /**
   * One worker's h2 connection: requests are streams written straight through the HTTP/2 codec (no
   * child channel per stream, one flush per request or per read), answers complete futures.
   */
  final class Conn {
    final String workerId;
    final String token;
    final AsciiString bearer;
    Channel parent;
    Client h2;
    String sessionId;
    long generation;
    long version;

    /**
     * The heartbeat body with its version cut out: {@code prefix + version + "}"} (checked in
     * register).
     */
    byte[] heartbeatPrefix;

    Conn(String workerId) throws Exception {
      this.workerId = workerId;
      this.token =
          Files.readString(pki.resolve("workers").resolve(workerId).resolve("token")).trim();
      this.bearer = AsciiString.of("Bearer " + token);
    }

    CompletableFuture<Void> connect() throws Exception {
      Path wd = pki.resolve("workers").resolve(workerId);
      PrivateKey key = PemFiles.readPrivateKey(wd.resolve("client.key"));
      X509Certificate cert = PemFiles.readCertificate(wd.resolve("client.crt"));
      SslContext ssl =
          SslContextBuilder.forClient()
              .sslProvider(SslProvider.JDK)
              .protocols("TLSv1.3")
              .keyManager(key, cert)
              .trustManager(PemFiles.readCertificate(pki.resolve("ca.crt")))
              .applicationProtocolConfig(
                  new ApplicationProtocolConfig(
                      ApplicationProtocolConfig.Protocol.ALPN,
                      ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                      ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                      ApplicationProtocolNames.HTTP_2))
              .build();
      CompletableFuture<Void> ready = new CompletableFuture<>();
      new Bootstrap()
          .group(group)
          .channel(transport.socketChannel())
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(
              new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                  SslHandler tls = ssl.newHandler(ch.alloc(), "127.0.0.1", port);
                  ch.pipeline().addLast(tls);
                  ch.pipeline()
                      .addLast(
                          new io.netty.channel.ChannelInboundHandlerAdapter() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                              if (evt instanceof SslHandshakeCompletionEvent e) {
                                if (!e.isSuccess()) {
                                  ready.completeExceptionally(e.cause());
                                  return;
                                }
                                if (!"h2".equals(tls.applicationProtocol())) {
                                  ready.completeExceptionally(
                                      new IllegalStateException(
                                          "no h2: " + tls.applicationProtocol()));
                                  return;
                                }
                                h2 = new ClientBuilder().build();
                                ctx.pipeline().addLast(h2);
                                ctx.pipeline().remove(this);
                                ready.complete(null);
                              }
                            }
                          });
                }
              })
          .connect("127.0.0.1", port)
          .addListener(
              (io.netty.channel.ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      ready.completeExceptionally(f.cause());
                    } else {
                      parent = f.channel();
                    }
                  });
      return ready;
    }

    /** Sends one request on a new stream; call from any thread. */
    CompletableFuture<Answer> post(String op, byte[] body) {
      CompletableFuture<Answer> answer = new CompletableFuture<>();
      if (parent.eventLoop().inEventLoop()) {
        send(op, body, answer);
      } else {
        parent.eventLoop().execute(() -> send(op, body, answer));
      }
      return answer;
    }

    private void send(String op, byte[] body, CompletableFuture<Answer> answer) {
      Http2Headers h =
          new DefaultHttp2Headers(false, 10)
              .method(POST)
              .scheme(HTTPS)
              .authority(authority)
              .path(
                  AsciiString.of(
                      "/ql3w/v1/workers/" + workerId + "/sessions/" + sessionId + "/" + op));
      h.set(HttpHeaderNames.AUTHORIZATION, bearer);
      h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
      h.set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON);
      h.set(HttpHeaderNames.USER_AGENT, USER_AGENT);
      h.set(HttpHeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(body.length)));
      h2.request(h, body, answer);
    }

    void register() throws Exception {
      sessionId = IDS.next();
      byte[] body =
          RegisterRequest.of(
                  new CapabilityBuilder()
                      .agent("0.1.0", "0123456789abcdef0123456789abcdef01234567")
                      .architecture("amd64")
                      .executor("noop", "1")
                      .limits(4, 65536, 4)
                      .profile(Profile.NODE)
                      .build(),
                  4)
              .toCanonicalBytes();
      Answer r = post("register", body).get(60, TimeUnit.SECONDS);
      if (r.status() != 200) {
        throw new IllegalStateException(
            workerId
                + " register: "
                + r.status()
                + " "
                + new String(r.body(), StandardCharsets.UTF_8));
      }
      RegisterResponse rr = RegisterResponse.parse(r.body());
      generation = rr.generation();
      version = 1;
      // Pre-encode the heartbeat: only the version changes between heartbeats, and it is the last
      // member
      // of the canonical form. Checked against the contract's serializer for several versions.
      byte[] one = heartbeatCanonical(1);
      byte[] suffix = "1}".getBytes(StandardCharsets.US_ASCII);
      if (!Arrays.equals(one, one.length - 2, one.length, suffix, 0, 2)) {
        throw new IllegalStateException(
            "the heartbeat's canonical form does not end with its version");
      }
      heartbeatPrefix = Arrays.copyOf(one, one.length - 2);
      for (long v : new long[] {1, 2, 9, 10, 99, 100, 12_345, 9_999_999_999L}) {
        if (!Arrays.equals(heartbeat(v), heartbeatCanonical(v))) {
          throw new IllegalStateException(
              "pre-encoded heartbeat differs from the canonical one at version " + v);
        }
      }
    }

    private byte[] heartbeatCanonical(long v) {
      return new HeartbeatRequest(
              new Capacity(4, 4), generation, new RunCounts(0, 0), SessionStatus.ACTIVE, v)
          .toCanonicalBytes();
    }

    /**
     * The canonical heartbeat body for {@code v}: the pre-encoded prefix, the digits, the closing
     * brace.
     */
    byte[] heartbeat(long v) {
      String digits = Long.toString(v);
      byte[] out = Arrays.copyOf(heartbeatPrefix, heartbeatPrefix.length + digits.length() + 1);
      for (int i = 0; i < digits.length(); i++) {
        out[heartbeatPrefix.length + i] = (byte) digits.charAt(i);
      }
      out[out.length - 1] = '}';
      return out;
    }
  }

  private static final AsciiString POST = AsciiString.cached("POST");
  private static final AsciiString HTTPS = AsciiString.cached("https");
  private static final AsciiString USER_AGENT = AsciiString.cached("ql3-worker/bench");
  private AsciiString authority;

  private static final class ClientBuilder
      extends AbstractHttp2ConnectionHandlerBuilder<Client, ClientBuilder> {
    ClientBuilder() {
      server(false);
      validateHeaders(true);
    }

    @Override
    protected Client build() {
      return super.build();
    }

    @Override
    protected Client build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      Client c = new Client(decoder, encoder, settings);
      frameListener(c.listener);
      return c;
    }
  }

  /** The HTTP/2 codec of one connection, with the streams waiting for their answer. */
  private static final class Client extends Http2ConnectionHandler {
    private static final class Pending {
      final CompletableFuture<Answer> answer;
      int status;
      byte[] body = new byte[0];

      Pending(CompletableFuture<Answer> answer) {
        this.answer = answer;
      }
    }

    private final IntObjectMap<Pending> pending = new IntObjectHashMap<>();
    private ChannelHandlerContext ctx;
    private boolean reading;

    final Http2EventAdapter listener =
        new Http2EventAdapter() {
          @Override
          public void onHeadersRead(
              ChannelHandlerContext c,
              int streamId,
              Http2Headers headers,
              int padding,
              boolean endOfStream) {
            Pending p = pending.get(streamId);
            if (p == null) {
              return;
            }
            if (headers.status() != null) {
              p.status = Integer.parseInt(headers.status().toString());
            }
            if (endOfStream) {
              done(streamId, p);
            }
          }

          @Override
          public void onHeadersRead(
              ChannelHandlerContext c,
              int streamId,
              Http2Headers headers,
              int dependency,
              short weight,
              boolean exclusive,
              int padding,
              boolean endOfStream) {
            onHeadersRead(c, streamId, headers, padding, endOfStream);
          }

          @Override
          public int onDataRead(
              ChannelHandlerContext c,
              int streamId,
              ByteBuf data,
              int padding,
              boolean endOfStream) {
            int n = data.readableBytes();
            Pending p = pending.get(streamId);
            if (p != null) {
              byte[] b = Arrays.copyOf(p.body, p.body.length + n);
              data.getBytes(data.readerIndex(), b, p.body.length, n);
              p.body = b;
              if (endOfStream) {
                done(streamId, p);
              }
            }
            return n + padding;
          }

          @Override
          public void onRstStreamRead(ChannelHandlerContext c, int streamId, long errorCode) {
            Pending p = pending.remove(streamId);
            if (p != null) {
              p.answer.completeExceptionally(
                  new IllegalStateException("stream reset " + errorCode));
            }
          }
        };

    Client(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      super(decoder, encoder, settings);
    }

    private void done(int streamId, Pending p) {
      pending.remove(streamId);
      p.answer.complete(new Answer(p.status, p.body));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext c) throws Exception {
      ctx = c;
      super.handlerAdded(c);
    }

    @Override
    public void channelRead(ChannelHandlerContext c, Object msg) throws Exception {
      reading = true;
      super.channelRead(c, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext c) throws Exception {
      reading = false;
      super.channelReadComplete(c); // flushes what the answers' callbacks wrote
    }

    @Override
    public void channelInactive(ChannelHandlerContext c) throws Exception {
      for (Pending p : pending.values()) {
        p.answer.completeExceptionally(new IllegalStateException("connection closed"));
      }
      pending.clear();
      super.channelInactive(c);
    }

    /**
     * On the event loop: HEADERS + DATA on a new stream; flushed now, or at the end of the current
     * read.
     */
    void request(Http2Headers headers, byte[] body, CompletableFuture<Answer> answer) {
      int streamId = connection().local().incrementAndGetNextStreamId();
      pending.put(streamId, new Pending(answer));
      encoder().writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
      encoder()
          .writeData(ctx, streamId, Unpooled.wrappedBuffer(body), 0, true, ctx.newPromise())
          .addListener(
              f -> {
                if (!f.isSuccess()) {
                  Pending p = pending.remove(streamId);
                  if (p != null) {
                    p.answer.completeExceptionally(f.cause());
                  }
                }
              });
      if (!reading) {
        flush(ctx);
      }
    }
  }

  private List<Conn> connectAll(int workers) throws Exception {
    DevPki dev = new DevPki(pki, Duration.ofDays(30));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      ids.add(String.format("load-%04d", i));
    }
    dev.create(ids);
    List<Conn> conns = new ArrayList<>();
    for (String id : ids) {
      Conn c = new Conn(id);
      c.connect().get(60, TimeUnit.SECONDS);
      conns.add(c);
    }
    return conns;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println(
          "usage: ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS] [WARMUP] [THREADS] [SERVER_PID] [WINDOWS]");
      System.exit(2);
    }
    String mode = args[0];
    Path pki = Path.of(args[1]);
    int port = Integer.parseInt(args[2]);
    int adminPort = Integer.parseInt(args[3]);
    int workers = Integer.parseInt(args[4]);
    int seconds = args.length > 5 ? Integer.parseInt(args[5]) : 20;
    int warmup = args.length > 6 ? Integer.parseInt(args[6]) : 10;
    int threads = args.length > 7 ? Integer.parseInt(args[7]) : 1;
    serverPid = args.length > 8 ? args[8] : null;
    ControlPlaneLoad load = new ControlPlaneLoad(pki, port, threads);
    try {
      if (mode.equals("heartbeat")) {
        load.heartbeats(workers, seconds, warmup, args.length > 9 ? Integer.parseInt(args[9]) : 1);
      } else {
        load.longPolls(workers, adminPort);
      }
    } finally {
      load.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private void heartbeats(int workers, int seconds, int warmup, int windows) throws Exception {
    SpeedProbe probe = new SpeedProbe();
    probe.median(50); // JIT
    long[] quietProbe = probe.median(21);
    System.out.println(
        "speed probe before the load: arithmetic "
            + quietProbe[0]
            + " us, memory walk "
            + quietProbe[1]
            + " us, sha-256 "
            + quietProbe[2]
            + " us");
    List<Conn> conns = connectAll(workers);
    System.out.println("connected " + conns.size() + " workers (" + transport.wireName() + ")");
    LongAdder ok = new LongAdder();
    LongAdder bad = new LongAdder();
    AtomicLong measuring = new AtomicLong(0); // 0 warm-up, 1 measuring, 2 stop
    long[] histogram = new long[64]; // log2 buckets of microseconds, guarded by itself
    for (Conn c : conns) {
      c.register();
    }
    System.out.println("registered " + conns.size() + " sessions");
    for (Conn c : conns) {
      loop(c, ok, bad, measuring, histogram);
    }
    Thread.sleep(warmup * 1000L);
    measuring.set(1);
    for (int window = 1; window <= windows; window++) {
      System.out.println("window " + window + " of " + windows + ":");
      synchronized (histogram) {
        Arrays.fill(histogram, 0);
      }
      String load0 = loadAverage();
      Map<String, Long> server0 = threadTicks(serverPid);
      long clientCpu0 = cpuTicks("self");
      long ok0 = ok.sum();
      long bad0 = bad.sum();
      long t0 = System.nanoTime();
      // One probe per second: how fast the cores ran during this window. Its CPU (15-20 ms a
      // second) is
      // part of the client CPU printed below.
      long[][] probes = new long[3][seconds];
      for (int i = 0; i < seconds; i++) {
        long due = t0 + (i + 1) * 1_000_000_000L;
        long[] p = probe.once();
        for (int k = 0; k < 3; k++) {
          probes[k][i] = p[k];
        }
        long left = due - System.nanoTime();
        if (left > 0) {
          Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
      }
      for (long[] p : probes) {
        Arrays.sort(p);
      }
      long okCount = ok.sum() - ok0;
      long badCount = bad.sum() - bad0;
      double elapsed = (System.nanoTime() - t0) / 1e9;
      Map<String, Long> server1 = threadTicks(serverPid);
      long clientCpu = cpuTicks("self") - clientCpu0;
      String load1 = loadAverage();
      if (serverPid != null) {
        // CPU time (user+sys, 10 ms ticks) the server process spent in the window: what a request
        // costs it,
        // whatever else the machine was doing. Split by thread: event loops, JIT compilers, GC/VM,
        // the rest.
        long serverCpu = server1.get("total") - server0.get("total");
        System.out.printf(
            "server CPU: %.2f s in %.1f s (%.0f%% of one core); %.1f us CPU per heartbeat"
                + " => ~%.0f heartbeats/s per fully available core%n",
            serverCpu / 100.0,
            elapsed,
            serverCpu / elapsed,
            serverCpu * 10_000.0 / Math.max(1, okCount),
            okCount / Math.max(0.01, serverCpu / 100.0));
        StringBuilder split = new StringBuilder("  by thread (us per heartbeat):");
        for (String k : List.of("io", "jit", "gc+vm", "other")) {
          long d = server1.getOrDefault(k, 0L) - server0.getOrDefault(k, 0L);
          split.append(String.format(" %s %.1f", k, d * 10_000.0 / Math.max(1, okCount)));
        }
        System.out.println(split);
        long ioTicks = server1.getOrDefault("io", 0L) - server0.getOrDefault("io", 0L);
        System.out.printf(
            "  event loops: %.0f%% in the kernel; per 1,000 heartbeats they blocked %.0f times"
                + " and were preempted %.0f times%n",
            100.0
                * (server1.getOrDefault("io-sys", 0L) - server0.getOrDefault("io-sys", 0L))
                / Math.max(1, ioTicks),
            1000.0
                * (server1.getOrDefault("io-blocked", 0L) - server0.getOrDefault("io-blocked", 0L))
                / Math.max(1, okCount),
            1000.0
                * (server1.getOrDefault("io-preempted", 0L)
                    - server0.getOrDefault("io-preempted", 0L))
                / Math.max(1, okCount));
      }
      System.out.printf(
          "client CPU: %.2f s (%.1f us per heartbeat)%n",
          clientCpu / 100.0, clientCpu * 10_000.0 / Math.max(1, okCount));
      System.out.printf(
          "heartbeats: %d ok, %d non-200 or invalid in %.1f s over %d h2 connections: %.0f/s%n",
          okCount, badCount, elapsed, conns.size(), okCount / elapsed);
      System.out.println("load average before: " + load0 + " after: " + load1);
      System.out.printf(
          "speed probe (median of one a second, vs before the load): arithmetic %d us = %.2fx,"
              + " memory walk %d us = %.2fx, sha-256 %d us = %.2fx%n",
          probes[0][seconds / 2],
          probes[0][seconds / 2] / (double) quietProbe[0],
          probes[1][seconds / 2],
          probes[1][seconds / 2] / (double) quietProbe[1],
          probes[2][seconds / 2],
          probes[2][seconds / 2] / (double) quietProbe[2]);
      synchronized (histogram) {
        long total = 0;
        for (long v : histogram) {
          total += v;
        }
        long seen = 0;
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
          seen = 0;
          for (int i = 0; i < histogram.length; i++) {
            seen += histogram[i];
            if (seen >= q * total) {
              System.out.printf("  latency p%s < %d us%n", q * 100, 1L << (i + 1));
              break;
            }
          }
        }
      }
    }
    measuring.set(2);
    Thread.sleep(500);
  }

  /** The 1, 5 and 15 minute load averages from /proc/loadavg. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  /**
   * utime+stime ticks of a process's threads by kind: {@code io} (ql3cp-io event loops), {@code
   * jit} (compiler threads), {@code gc+vm}, {@code other}, and {@code total} (the process, from its
   * own stat).
   */
  static Map<String, Long> threadTicks(String pid) {
    Map<String, Long> out = new TreeMap<>();
    out.put("total", cpuTicks(pid));
    if (pid == null) {
      return out;
    }
    try (var tasks = Files.list(Path.of("/proc", pid, "task"))) {
      for (Path t : tasks.toList()) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          String kind =
              name.startsWith("ql3cp-io")
                  ? "io"
                  : name.contains("CompilerThre")
                      ? "jit"
                      : name.startsWith("VM Thread") || name.startsWith("GC") ? "gc+vm" : "other";
          out.merge(kind, ticks, Long::sum);
          if (kind.equals("io")) {
            // How the event loops spent it: kernel ticks, and how often they blocked (epoll_wait
            // with
            // nothing to do) or were preempted: requests per wake-up decide much of the cost per
            // request.
            out.merge("io-sys", Long.parseLong(f[12]), Long::sum);
            for (String line : Files.readAllLines(t.resolve("status"))) {
              if (line.startsWith("voluntary_ctxt_switches:")) {
                out.merge(
                    "io-blocked",
                    Long.parseLong(line.substring(line.indexOf(':') + 1).trim()),
                    Long::sum);
              } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                out.merge(
                    "io-preempted",
                    Long.parseLong(line.substring(line.indexOf(':') + 1).trim()),
                    Long::sum);
              }
            }
          }
        } catch (Exception e) {
          // the thread ended meanwhile
        }
      }
    } catch (Exception e) {
      // no such process
    }
    return out;
  }

  /** utime+stime of a process in clock ticks (1/100 s on Linux), from /proc; 0 when unknown. */
  static long cpuTicks(String pid) {
    if (pid == null) {
      return 0;
    }
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * One worker's heartbeat loop: the next heartbeat leaves as soon as the previous answer arrived
   * (one session request at a time, as the contract requires). Counted only when the answer is a
   * 200 whose body the contract's strict parser accepts and whose version is the next one.
   */
  private void loop(Conn c, LongAdder ok, LongAdder bad, AtomicLong measuring, long[] histogram) {
    if (measuring.get() == 2) {
      return;
    }
    long start = System.nanoTime();
    long sent = c.version;
    c.post("heartbeat", c.heartbeat(sent))
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                if (measuring.get() != 2) {
                  bad.increment();
                  System.err.println(c.workerId + ": " + e);
                }
                return;
              }
              if (r.status() == 200) {
                long next;
                try {
                  next = HeartbeatResponse.parse(r.body()).version();
                } catch (Exception ex) {
                  bad.increment();
                  System.err.println(c.workerId + ": invalid heartbeat response: " + ex);
                  return;
                }
                if (next != sent + 1) {
                  bad.increment();
                  System.err.println(
                      c.workerId + ": sent version " + sent + ", answered version " + next);
                  return;
                }
                c.version = next;
                ok.increment();
                long us = Math.max(1, (System.nanoTime() - start) / 1000);
                int bucket = 63 - Long.numberOfLeadingZeros(us);
                synchronized (histogram) {
                  histogram[bucket]++;
                }
                loop(c, ok, bad, measuring, histogram);
              } else {
                bad.increment();
                System.err.println(
                    c.workerId
                        + ": "
                        + r.status()
                        + " "
                        + new String(r.body(), StandardCharsets.UTF_8));
              }
            });
  }

  private void longPolls(int workers, int adminPort) throws Exception {
    List<Conn> conns = connectAll(workers);
    for (Conn c : conns) {
      c.register();
    }
    System.out.println("registered " + conns.size() + " sessions");
    CountDownLatch answered = new CountDownLatch(conns.size());
    AtomicLong failures = new AtomicLong();
    LongAdder offers = new LongAdder();
    AtomicLong lastAnswer = new AtomicLong();
    for (Conn c : conns) {
      byte[] body =
          new PullRequest(c.generation, 1, new PullId(IDS.next()), 60_000).toCanonicalBytes();
      c.post("pull", body)
          .whenComplete(
              (r, e) -> {
                if (e == null) {
                  byte[] b = r.body();
                  try {
                    offers.add(PullResponse.parse(b).offers().size());
                  } catch (Exception ex) {
                    if (failures.incrementAndGet() <= 5) {
                      System.err.println(
                          c.workerId
                              + ": "
                              + r.status()
                              + " "
                              + new String(b, StandardCharsets.UTF_8));
                    }
                  }
                } else {
                  System.err.println(c.workerId + ": " + e);
                }
                lastAnswer.set(System.nanoTime());
                answered.countDown();
              });
    }
    HttpClient admin = HttpClient.newHttpClient();
    String parked = "";
    for (int i = 0; i < 600; i++) {
      parked =
          admin
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + adminPort + "/connections"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      if (parked.contains("\"parkedPulls\":" + workers)) {
        break;
      }
      Thread.sleep(100);
    }
    String count = parked.replaceAll(".*\"parkedPulls\":(\\d+).*", "$1");
    System.out.println(
        "server holds "
            + count
            + " parked pulls (answered early: "
            + (workers - answered.getCount())
            + ")");
    String load0 = loadAverage();
    long serverCpu0 = cpuTicks(serverPid);
    long t0 = System.nanoTime();
    HttpResponse<String> sub =
        admin.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/runs"))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"count\":" + workers + ",\"executor\":\"noop\",\"spec\":{}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    long submitted = System.nanoTime();
    boolean all = answered.await(60, TimeUnit.SECONDS);
    long serverCpu = cpuTicks(serverPid) - serverCpu0;
    System.out.printf(
        "submit of %d runs answered %d in %.1f ms; all %d parked pulls answered: %s, offers: %d, "
            + "failures: %d, last answer %.1f ms after the submit was sent%n",
        workers,
        sub.statusCode(),
        (submitted - t0) / 1e6,
        workers,
        all,
        offers.sum(),
        failures.get(),
        (lastAnswer.get() - t0) / 1e6);
    System.out.printf(
        "server CPU from the submit to the last answer: %.2f s; load average before: %s after: %s%n",
        serverCpu / 100.0, load0, loadAverage());
  }
}
