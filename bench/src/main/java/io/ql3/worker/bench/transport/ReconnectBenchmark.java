package io.ql3.worker.bench.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.IngressResult;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reconnect cost of the real {@link IngressClient}: every heartbeat is answered with {@code
 * connection: close} (http/1.1), so each invocation is TCP connect + TLS 1.3 mTLS handshake + one
 * heartbeat round trip. The client is identical in both cases (one credential generation, one
 * SslContext and its session cache); only the server differs:
 *
 * <ul>
 *   <li>{@code resumed}: one server SslContext, so the client's ticket from the previous connection
 *       is accepted (PSK resumption: no certificates, no CertificateVerify);
 *   <li>{@code full}: the server alternates between two warm SslContexts (each with its own ticket
 *       keys and session cache) from one connection to the next, switched in an untimed
 *       per-invocation setup, so the client's ticket is always from the other context and useless:
 *       every handshake is full, as after a credential rotation.
 * </ul>
 *
 * The trial fails unless the server's trust manager (run only in full handshakes) confirms the
 * mode.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class ReconnectBenchmark {
  @Param({"resumed", "full"})
  public String handshake;

  private Path dir;
  private BenchPki pki;
  private CloseAfterAnswerServer server;
  private IngressClient ingress;
  private HeartbeatRequest request;
  private SessionId session;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    pki = new BenchPki();
    server = new CloseAfterAnswerServer(pki);
    request = HeartbeatRequest.parse(HeartbeatRoundTripBenchmark.HEARTBEAT);
    session = SessionId.of(HeartbeatRoundTripBenchmark.SESSION);
    dir = Files.createTempDirectory("bench-reconnect");
    pki.writeClientFiles(dir);
    CredentialProvider provider =
        CredentialProvider.load(
            new CredentialFiles(
                dir.resolve("client.pem"),
                dir.resolve("client.key"),
                dir.resolve("ca.pem"),
                dir.resolve("token")),
            BenchPki.WORKER,
            Clock.systemUTC(),
            CredentialProvider.Settings.defaults());
    ingress =
        IngressClient.open(
            new IngressEndpoint("127.0.0.1", server.port()),
            WorkerId.of(BenchPki.WORKER),
            provider,
            TransportSettings.defaults("bench"));
    heartbeat(); // first connection: always a full handshake
  }

  @Setup(Level.Invocation)
  public void serverContext() {
    if (handshake.equals("full")) {
      server.ssl = server.ssl == server.first ? server.second : server.first;
    }
  }

  private HeartbeatResponse heartbeat() throws Exception {
    IngressResult<HeartbeatResponse> r =
        ingress.heartbeat(session, request).get(10, TimeUnit.SECONDS);
    if (!r.isSuccess()) {
      throw new IllegalStateException(r.toString());
    }
    return r.value();
  }

  @Benchmark
  public HeartbeatResponse reconnectAndHeartbeat() throws Exception {
    return heartbeat();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    int connections = ingress.connectionsOpened();
    int handshakes = server.handshakes.get();
    int full = server.fullHandshakes.get();
    ingress.close();
    server.close();
    System.out.printf(
        "%n[reconnect/%s] client connections %d, server handshakes %d, full %d, resumed %d%n",
        handshake, connections, handshakes, full, handshakes - full);
    boolean ok = handshake.equals("full") ? full == handshakes : full == 1 && handshakes > 1;
    if (!ok || connections != handshakes) {
      throw new IllegalStateException(
          "handshake mode not as intended: "
              + handshake
              + ", "
              + full
              + " full of "
              + handshakes
              + " handshakes, "
              + connections
              + " client connections");
    }
  }

  /**
   * http/1.1-only TLS 1.3 mTLS server: answers the heartbeat vector with {@code connection: close}.
   */
  static final class CloseAfterAnswerServer implements AutoCloseable {
    final AtomicInteger handshakes = new AtomicInteger();
    final AtomicInteger fullHandshakes = new AtomicInteger();
    final SslContext first;
    final SslContext second;
    volatile SslContext ssl;
    private final EventLoopGroup group;
    private final Channel channel;

    CloseAfterAnswerServer(BenchPki pki) throws Exception {
      first = context(pki, fullHandshakes);
      second = context(pki, fullHandshakes);
      ssl = first;
      group =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("bench-server", true), NioIoHandler.newFactory());
      channel =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      SslHandler tls = ssl.newHandler(ch.alloc());
                      tls.handshakeFuture()
                          .addListener(
                              f -> {
                                if (f.isSuccess()) {
                                  handshakes.incrementAndGet();
                                }
                              });
                      ch.pipeline()
                          .addLast(
                              tls,
                              new HttpServerCodec(),
                              new HttpObjectAggregator(1 << 16),
                              new Answer());
                    }
                  })
              .bind(new InetSocketAddress("127.0.0.1", 0))
              .sync()
              .channel();
    }

    static SslContext context(BenchPki pki, AtomicInteger fullHandshakes) throws Exception {
      return SslContextBuilder.forServer(pki.serverKeys.getPrivate(), pki.server)
          .sslProvider(SslProvider.JDK)
          .protocols("TLSv1.3")
          .trustManager(new CountingTrustManager(pki.ca, fullHandshakes))
          .clientAuth(ClientAuth.REQUIRE)
          .applicationProtocolConfig(
              new ApplicationProtocolConfig(
                  ApplicationProtocolConfig.Protocol.ALPN,
                  ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                  ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                  "http/1.1"))
          .build();
    }

    int port() {
      return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
      channel.close().syncUninterruptibly();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
      @Override
      protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        FullHttpResponse res =
            new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(BenchIngressServer.HEARTBEAT_RESPONSE));
        res.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, BenchIngressServer.HEARTBEAT_RESPONSE.length);
        ctx.writeAndFlush(res); // the client closes after reading it
      }
    }
  }

  /**
   * PKIX for the bench CA; counts client chains verified (= full handshakes: none in a resumed
   * one).
   */
  static final class CountingTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;
    private final AtomicInteger count;

    CountingTrustManager(X509Certificate ca, AtomicInteger count) throws Exception {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
      tmf.init(store);
      X509ExtendedTrustManager found = null;
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          found = x;
        }
      }
      this.delegate = found;
      this.count = count;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      count.incrementAndGet();
      delegate.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      count.incrementAndGet();
      delegate.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      count.incrementAndGet();
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }
}
