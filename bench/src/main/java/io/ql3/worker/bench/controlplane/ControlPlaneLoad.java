package io.ql3.worker.bench.controlplane;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
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
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Netty h2 load client for the reference control plane (a benchmark, not a test). Every simulated worker
 * has its own certificate, token and one TLS 1.3 h2 connection, and follows the contract (one session request
 * at a time per worker, versions in order).
 *
 * <pre>
 * heartbeat mode: W workers register, then each sends its next heartbeat as soon as the previous answer
 *                 arrived, for S seconds after a warm-up; prints answers/s and the latency distribution.
 * longpoll mode:  W workers register and each parks one pull (waitMs 60000); prints how many the server
 *                 holds (admin /connections), then submits W runs and measures until every pull got its offer.
 * </pre>
 *
 * Usage: {@code ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS] [WARMUP]}.
 * Workers are {@code load-0000…}; missing ones are added to PKI_DIR with {@link DevPki} (the server reads
 * token files per request, so a running server accepts them at once).
 */
public final class ControlPlaneLoad {
  private static final Uuid7Generator IDS = new Uuid7Generator(System::currentTimeMillis, new Random());

  private static String serverPid;
  private final EventLoopGroup group;
  private final Path pki;
  private final int port;

  private ControlPlaneLoad(Path pki, int port, int threads) {
    this.pki = pki;
    this.port = port;
    this.group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("load-io"),
        NioIoHandler.newFactory());
  }

  /** One worker's h2 connection: requests are streams; answers complete futures. */
  final class Conn {
    final String workerId;
    final String token;
    Channel parent;
    String sessionId;
    long generation;
    long version;

    Conn(String workerId) throws Exception {
      this.workerId = workerId;
      this.token = Files.readString(pki.resolve("workers").resolve(workerId).resolve("token")).trim();
    }

    CompletableFuture<Void> connect() throws Exception {
      Path wd = pki.resolve("workers").resolve(workerId);
      PrivateKey key = PemFiles.readPrivateKey(wd.resolve("client.key"));
      X509Certificate cert = PemFiles.readCertificate(wd.resolve("client.crt"));
      SslContext ssl = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols("TLSv1.3")
          .keyManager(key, cert).trustManager(PemFiles.readCertificate(pki.resolve("ca.crt")))
          .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_2))
          .build();
      CompletableFuture<Void> ready = new CompletableFuture<>();
      new Bootstrap().group(group).channel(NioSocketChannel.class).option(ChannelOption.TCP_NODELAY, true)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              SslHandler tls = ssl.newHandler(ch.alloc(), "127.0.0.1", port);
              ch.pipeline().addLast(tls);
              ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                  if (evt instanceof SslHandshakeCompletionEvent e) {
                    if (!e.isSuccess()) {
                      ready.completeExceptionally(e.cause());
                      return;
                    }
                    if (!"h2".equals(tls.applicationProtocol())) {
                      ready.completeExceptionally(new IllegalStateException("no h2: " + tls.applicationProtocol()));
                      return;
                    }
                    ctx.pipeline().addLast(Http2FrameCodecBuilder.forClient().build());
                    ctx.pipeline().addLast(new Http2MultiplexHandler(new io.netty.channel.ChannelInboundHandlerAdapter()));
                    ctx.pipeline().remove(this);
                    ready.complete(null);
                  }
                }
              });
            }
          }).connect("127.0.0.1", port).addListener((io.netty.channel.ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
              ready.completeExceptionally(f.cause());
            } else {
              parent = f.channel();
            }
          });
      return ready;
    }

    CompletableFuture<FullHttpResponse> post(String op, byte[] body) {
      CompletableFuture<FullHttpResponse> answer = new CompletableFuture<>();
      new Http2StreamChannelBootstrap(parent).handler(new ChannelInitializer<Http2StreamChannel>() {
        @Override
        protected void initChannel(Http2StreamChannel ch) {
          ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false), new HttpObjectAggregator(2 << 20),
              new SimpleChannelInboundHandler<FullHttpResponse>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse msg) {
                  answer.complete(msg.retainedDuplicate());
                  ctx.close();
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                  answer.completeExceptionally(new IllegalStateException("stream closed without answer"));
                }
              });
        }
      }).open().addListener(f -> {
        if (!f.isSuccess()) {
          answer.completeExceptionally(f.cause());
          return;
        }
        Http2StreamChannel ch = (Http2StreamChannel) f.getNow();
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
            "/ql3w/v1/workers/" + workerId + "/sessions/" + sessionId + "/" + op, Unpooled.wrappedBuffer(body));
        req.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token)
            .set(HttpHeaderNames.CONTENT_TYPE, "application/json").set(HttpHeaderNames.ACCEPT, "application/json")
            .set(HttpHeaderNames.USER_AGENT, "ql3-worker/bench").setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
            .set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), "https");
        req.headers().set(HttpHeaderNames.HOST, "127.0.0.1:" + port);
        ch.writeAndFlush(req);
      });
      return answer;
    }

    byte[] bytes(FullHttpResponse r) {
      byte[] b = new byte[r.content().readableBytes()];
      r.content().getBytes(r.content().readerIndex(), b);
      r.release();
      return b;
    }

    void register() throws Exception {
      sessionId = IDS.next();
      byte[] body = RegisterRequest.of(new CapabilityBuilder().agent("0.1.0", "0123456789abcdef0123456789abcdef01234567")
          .architecture("amd64").executor("noop", "1").limits(4, 65536, 4).profile(Profile.NODE).build(), 4)
          .toCanonicalBytes();
      FullHttpResponse r = post("register", body).get(60, TimeUnit.SECONDS);
      if (r.status().code() != 200) {
        throw new IllegalStateException(workerId + " register: " + r.status() + " " + new String(bytes(r)));
      }
      RegisterResponse rr = RegisterResponse.parse(bytes(r));
      generation = rr.generation();
      version = 1;
    }

    byte[] heartbeat() {
      return new HeartbeatRequest(new Capacity(4, 4), generation, new RunCounts(0, 0), SessionStatus.ACTIVE, version)
          .toCanonicalBytes();
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
      System.err.println("usage: ControlPlaneLoad heartbeat|longpoll PKI_DIR PORT ADMIN_PORT WORKERS [SECONDS] [WARMUP] [THREADS]");
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
        load.heartbeats(workers, seconds, warmup);
      } else {
        load.longPolls(workers, adminPort);
      }
    } finally {
      load.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private void heartbeats(int workers, int seconds, int warmup) throws Exception {
    List<Conn> conns = connectAll(workers);
    System.out.println("connected " + conns.size() + " workers");
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
    ok.reset();
    bad.reset();
    synchronized (histogram) {
      java.util.Arrays.fill(histogram, 0);
    }
    measuring.set(1);
    long serverCpu0 = cpuTicks(serverPid);
    long clientCpu0 = cpuTicks("self");
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long okCount = ok.sum();
    long badCount = bad.sum();
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long serverCpu = cpuTicks(serverPid) - serverCpu0;
    long clientCpu = cpuTicks("self") - clientCpu0;
    measuring.set(2);
    if (serverPid != null) {
      // CPU time (user+sys, 10 ms ticks) the server process spent in the window: what a request costs it,
      // whatever else the machine was doing.
      System.out.printf("server CPU: %.2f s in %.1f s (%.0f%% of one core); %.1f us CPU per heartbeat"
          + " => ~%.0f heartbeats/s per fully available core%n", serverCpu / 100.0, elapsed,
          serverCpu / elapsed, serverCpu * 10_000.0 / Math.max(1, okCount),
          okCount / Math.max(0.01, serverCpu / 100.0));
    }
    System.out.printf("client CPU: %.2f s (%.1f us per heartbeat)%n", clientCpu / 100.0,
        clientCpu * 10_000.0 / Math.max(1, okCount));
    System.out.printf("heartbeats: %d ok, %d non-200 in %.1f s over %d h2 connections: %.0f/s%n", okCount, badCount,
        elapsed, conns.size(), okCount / elapsed);
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
    Thread.sleep(500);
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

  private void loop(Conn c, LongAdder ok, LongAdder bad, AtomicLong measuring, long[] histogram) {
    if (measuring.get() == 2) {
      return;
    }
    long start = System.nanoTime();
    c.post("heartbeat", c.heartbeat()).whenComplete((r, e) -> {
      if (e != null) {
        if (measuring.get() != 2) {
          bad.increment();
          System.err.println(c.workerId + ": " + e);
        }
        return;
      }
      int status = r.status().code();
      byte[] body = c.bytes(r);
      if (status == 200) {
        try {
          c.version = HeartbeatResponse.parse(body).version();
        } catch (Exception ex) {
          bad.increment();
          return;
        }
        ok.increment();
        long us = Math.max(1, (System.nanoTime() - start) / 1000);
        synchronized (histogram) {
          histogram[63 - Long.numberOfLeadingZeros(us)]++;
        }
        loop(c, ok, bad, measuring, histogram);
      } else {
        bad.increment();
        System.err.println(c.workerId + ": " + status + " " + new String(body, StandardCharsets.UTF_8));
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
      byte[] body = new PullRequest(c.generation, 1, new PullId(IDS.next()), 60_000).toCanonicalBytes();
      c.post("pull", body).whenComplete((r, e) -> {
        if (e == null) {
          byte[] b = c.bytes(r);
          try {
            offers.add(PullResponse.parse(b).offers().size());
          } catch (Exception ex) {
            if (failures.incrementAndGet() <= 5) {
              System.err.println(c.workerId + ": " + r.status() + " " + new String(b, StandardCharsets.UTF_8));
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
      parked = admin.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/connections")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      if (parked.contains("\"parkedPulls\":" + workers)) {
        break;
      }
      Thread.sleep(100);
    }
    String count = parked.replaceAll(".*\"parkedPulls\":(\\d+).*", "$1");
    System.out.println("server holds " + count + " parked pulls (answered early: "
        + (workers - answered.getCount()) + ")");
    long t0 = System.nanoTime();
    HttpResponse<String> sub = admin.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/runs"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"count\":" + workers + ",\"executor\":\"noop\",\"spec\":{}}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    long submitted = System.nanoTime();
    boolean all = answered.await(60, TimeUnit.SECONDS);
    System.out.printf("submit of %d runs answered %d in %.1f ms; all %d parked pulls answered: %s, offers: %d, "
        + "failures: %d, last answer %.1f ms after the submit was sent%n", workers, sub.statusCode(),
        (submitted - t0) / 1e6, workers, all, offers.sum(), failures.get(), (lastAnswer.get() - t0) / 1e6);
  }
}
