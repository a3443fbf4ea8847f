package io.ql3.worker.bench.controlplane;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.controlplane.pki.PemFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One simulated worker: its own certificate, token and TLS 1.3 h2 connection, and its session (id,
 * generation, the next heartbeat version). Requests are streams written straight through the HTTP/2
 * codec ({@link H2ClientHandler}: no child channel per stream, one flush per request or per read),
 * answers complete futures. The heartbeat body is pre-encoded with only its version spliced in,
 * checked against the contract's serializer at register.
 */
final class WorkerConnection {
  /** Session and pull ids. */
  static final Uuid7Generator IDS = new Uuid7Generator(System::currentTimeMillis, new Random());

  private static final AsciiString POST = AsciiString.cached("POST");
  private static final AsciiString HTTPS = AsciiString.cached("https");
  private static final AsciiString USER_AGENT = AsciiString.cached("ql3-worker/bench");

  private final LoadConnections net;
  final String workerId;
  final String token;
  final AsciiString bearer;
  Channel parent;
  H2ClientHandler h2;
  String sessionId;
  long generation;
  long version;

  /**
   * The heartbeat body with its version cut out: {@code prefix + version + "}"} (checked in
   * register).
   */
  byte[] heartbeatPrefix;

  WorkerConnection(LoadConnections net, String workerId) throws Exception {
    this.net = net;
    this.workerId = workerId;
    this.token =
        Files.readString(net.pki.resolve("workers").resolve(workerId).resolve("token")).trim();
    this.bearer = AsciiString.of("Bearer " + token);
  }

  CompletableFuture<Void> connect() throws Exception {
    Path wd = net.pki.resolve("workers").resolve(workerId);
    PrivateKey key = PemFiles.readPrivateKey(wd.resolve("client.key"));
    X509Certificate cert = PemFiles.readCertificate(wd.resolve("client.crt"));
    SslContext ssl =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .keyManager(key, cert)
            .trustManager(PemFiles.readCertificate(net.pki.resolve("ca.crt")))
            .applicationProtocolConfig(
                new ApplicationProtocolConfig(
                    ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    ApplicationProtocolNames.HTTP_2))
            .build();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    new Bootstrap()
        .group(net.group)
        .channel(net.transport.socketChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                SslHandler tls = ssl.newHandler(ch.alloc(), "127.0.0.1", net.port);
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
                              h2 = new H2ClientHandler.Builder().build();
                              ctx.pipeline().addLast(h2);
                              ctx.pipeline().remove(this);
                              ready.complete(null);
                            }
                          }
                        });
              }
            })
        .connect("127.0.0.1", net.port)
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
            .authority(net.authority)
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
    byte[] body = BenchRegistration.body();
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
    // member of the canonical form. Checked against the contract's serializer for several
    // versions.
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
