package io.ql3.worker.transport.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real TLS server on 127.0.0.1 for tests: requires a client certificate from the test CA, offers
 * h2 and/or http/1.1 by ALPN (or TLS 1.2 only), and answers each request by a pluggable responder.
 * It records every accepted connection, the client certificate seen on it and every request.
 */
public final class TestServer implements AutoCloseable {
  public enum Alpn {
    H2_AND_HTTP11,
    HTTP11_ONLY,
    /** No ALPN at all (a server that predates it): the client must fall back to http/1.1. */
    NONE
  }

  /** A request as the server saw it. */
  public record Request(
      String method,
      String path,
      Map<String, String> headers,
      byte[] body,
      String protocol,
      int connection,
      String clientSha256) {}

  /** What to do with a request. */
  public sealed interface Reply
      permits Respond, Reset, Never, Drip, Raw, Stream, RespondThenGoAway {}

  public record Respond(int status, Map<String, String> headers, byte[] body) implements Reply {}

  /** Close the connection (http/1.1) or reset the stream (h2) without an answer. */
  public record Reset() implements Reply {}

  /** Never answer. */
  public record Never() implements Reply {}

  /** 200 with a declared length, body written one byte at a time with a pause between. */
  public record Drip(byte[] body, long pauseMillis) implements Reply {}

  /** Answer, then send GOAWAY on the h2 connection (graceful shutdown of the connection). */
  public record RespondThenGoAway(Respond respond) implements Reply {}

  /**
   * Status and body in chunks without a declared length (chunked on http/1.1, plain DATA frames on
   * h2).
   */
  public record Stream(int status, byte[] body, int chunk) implements Reply {}

  /** Bytes written below HTTP and inside TLS (http/1.1 only), then close. */
  public record Raw(byte[] bytes) implements Reply {}

  public static Respond json(int status, String body) {
    return new Respond(status, Map.of(), body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private final EventLoopGroup group;
  private final Channel server;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger activeConnections = new AtomicInteger();
  private final AtomicInteger maxActiveConnections = new AtomicInteger();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final List<String> clientCertificates = new CopyOnWriteArrayList<>();
  private final AtomicInteger fullHandshakes = new AtomicInteger();
  private final AtomicInteger completedHandshakes = new AtomicInteger();
  private volatile Function<Request, CompletableFuture<Reply>> responder;

  public static final class Builder {
    private TestPki.Issued serverCert;
    private X509Certificate clientCa;
    private Alpn alpn = Alpn.H2_AND_HTTP11;
    private String protocol = "TLSv1.3";
    private Function<Request, CompletableFuture<Reply>> responder =
        r -> CompletableFuture.completedFuture(json(200, "{}"));

    public Builder certificate(TestPki.Issued cert) {
      this.serverCert = cert;
      return this;
    }

    public Builder clientCa(X509Certificate ca) {
      this.clientCa = ca;
      return this;
    }

    public Builder alpn(Alpn a) {
      this.alpn = a;
      return this;
    }

    public Builder protocol(String p) {
      this.protocol = p;
      return this;
    }

    public Builder responder(Function<Request, CompletableFuture<Reply>> r) {
      this.responder = r;
      return this;
    }

    public TestServer start() throws Exception {
      return new TestServer(this);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private TestServer(Builder b) throws Exception {
    this.responder = b.responder;
    SslContextBuilder sslBuilder =
        SslContextBuilder.forServer(
                (PrivateKey) b.serverCert.key(),
                b.serverCert.chain().toArray(X509Certificate[]::new))
            .sslProvider(SslProvider.JDK)
            .protocols(b.protocol)
            .trustManager(CountingTrustManager.of(b.clientCa, fullHandshakes))
            .clientAuth(ClientAuth.REQUIRE);
    if (b.alpn != Alpn.NONE) {
      sslBuilder.applicationProtocolConfig(
          new ApplicationProtocolConfig(
              ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              b.alpn == Alpn.H2_AND_HTTP11
                  ? new String[] {
                    ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1
                  }
                  : new String[] {ApplicationProtocolNames.HTTP_1_1}));
    }
    SslContext ssl = sslBuilder.build();
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("test-server", true), NioIoHandler.newFactory());
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    int id = connections.incrementAndGet();
                    int active = activeConnections.incrementAndGet();
                    maxActiveConnections.accumulateAndGet(active, Math::max);
                    ch.closeFuture().addListener(f -> activeConnections.decrementAndGet());
                    SslHandler tls = ssl.newHandler(ch.alloc());
                    ch.pipeline().addLast(tls);
                    ch.pipeline()
                        .addLast(
                            new ApplicationProtocolNegotiationHandler(
                                ApplicationProtocolNames.HTTP_1_1) {
                              @Override
                              protected void configurePipeline(
                                  ChannelHandlerContext ctx, String protocol) throws Exception {
                                String fp =
                                    TestPkiFingerprint.of(
                                        (X509Certificate)
                                            tls.engine().getSession().getPeerCertificates()[0]);
                                clientCertificates.add(fp);
                                completedHandshakes.incrementAndGet();
                                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                  ctx.pipeline()
                                      .addLast(Http2FrameCodecBuilder.forServer().build());
                                  ctx.pipeline()
                                      .addLast(
                                          new Http2MultiplexHandler(
                                              new ChannelInitializer<Http2StreamChannel>() {
                                                @Override
                                                protected void initChannel(Http2StreamChannel s) {
                                                  s.pipeline()
                                                      .addLast(
                                                          new Http2StreamFrameToHttpObjectCodec(
                                                              true));
                                                  s.pipeline()
                                                      .addLast(new HttpObjectAggregator(2 << 20));
                                                  s.pipeline()
                                                      .addLast(new RequestHandler("h2", id, fp));
                                                }
                                              }));
                                } else {
                                  ctx.pipeline().addLast(new HttpServerCodec());
                                  ctx.pipeline().addLast(new HttpObjectAggregator(2 << 20));
                                  ctx.pipeline().addLast(new RequestHandler("http/1.1", id, fp));
                                }
                              }

                              @Override
                              protected void handshakeFailure(
                                  ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close();
                              }
                            });
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** Connections accepted (TCP), including ones whose handshake failed. */
  public int connections() {
    return connections.get();
  }

  public int maxConcurrentConnections() {
    return maxActiveConnections.get();
  }

  public List<Request> requests() {
    return requests;
  }

  /**
   * SHA-256 of the client certificate of each connection that completed its handshake, in order.
   */
  public List<String> clientCertificates() {
    return clientCertificates;
  }

  /**
   * Handshakes in which the server verified a client certificate chain. TLS 1.3 allows no
   * CertificateRequest in a PSK (resumed) handshake, so the server's trust manager runs exactly
   * once per full handshake and never for a resumed one.
   */
  public int fullHandshakes() {
    return fullHandshakes.get();
  }

  /** Handshakes that completed (full or resumed). */
  public int completedHandshakes() {
    return completedHandshakes.get();
  }

  /**
   * Completed handshakes that resumed an earlier session (the client certificate was not verified
   * again).
   */
  public int resumedHandshakes() {
    return completedHandshakes.get() - fullHandshakes.get();
  }

  public void responder(Function<Request, CompletableFuture<Reply>> r) {
    this.responder = r;
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final String protocol;
    private final int connection;
    private final String clientSha256;

    RequestHandler(String protocol, int connection, String clientSha256) {
      this.protocol = protocol;
      this.connection = connection;
      this.clientSha256 = clientSha256;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest msg) {
      Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      msg.headers().forEach(e -> h.put(e.getKey(), e.getValue()));
      Request r =
          new Request(
              msg.method().name(),
              msg.uri(),
              h,
              ByteBufUtil.getBytes(msg.content()),
              protocol,
              connection,
              clientSha256);
      requests.add(r);
      responder
          .apply(r)
          .whenComplete((reply, err) -> ctx.executor().execute(() -> answer(ctx, reply)));
    }

    private void answer(ChannelHandlerContext ctx, Reply reply) {
      if (reply instanceof RespondThenGoAway g) {
        answer(ctx, g.respond());
        Channel parent = ctx.channel().parent();
        if (parent != null) {
          parent.writeAndFlush(
              new io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame(
                  io.netty.handler.codec.http2.Http2Error.NO_ERROR));
        }
        return;
      }
      if (reply instanceof Respond res) {
        FullHttpResponse out =
            new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(res.status()),
                Unpooled.wrappedBuffer(res.body()));
        res.headers().forEach((k, v) -> out.headers().set(k, v));
        out.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.body().length);
        ctx.writeAndFlush(out);
      } else if (reply instanceof Reset) {
        ctx.close();
      } else if (reply instanceof Drip d) {
        DefaultHttpResponse head =
            new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, d.body().length);
        ctx.writeAndFlush(head);
        drip(ctx, d, 0);
      } else if (reply instanceof Stream st) {
        DefaultHttpResponse head =
            new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(st.status()));
        if ("http/1.1".equals(protocol)) {
          io.netty.handler.codec.http.HttpUtil.setTransferEncodingChunked(head, true);
        }
        ctx.write(head);
        for (int i = 0; i < st.body().length; i += st.chunk()) {
          ctx.write(
              new DefaultHttpContent(
                  Unpooled.wrappedBuffer(
                      st.body(), i, Math.min(st.chunk(), st.body().length - i))));
        }
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      } else if (reply instanceof Raw raw) {
        // From the HTTP codec's place in the pipeline: the bytes bypass HTTP, not TLS.
        ChannelHandlerContext http = ctx.pipeline().context(HttpServerCodec.class);
        http.writeAndFlush(Unpooled.wrappedBuffer(raw.bytes()))
            .addListener(ChannelFutureListener.CLOSE);
      }
      // Never: nothing
    }

    private void drip(ChannelHandlerContext ctx, Drip d, int i) {
      if (!ctx.channel().isActive()) {
        return;
      }
      if (i == d.body().length) {
        ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        return;
      }
      ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(d.body(), i, 1)));
      ctx.executor().schedule(() -> drip(ctx, d, i + 1), d.pauseMillis(), TimeUnit.MILLISECONDS);
    }
  }

  static final class TestPkiFingerprint {
    static String of(X509Certificate c) {
      try {
        return java.util.HexFormat.of()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** n copies of one ASCII character, for cap tests. */
  public static byte[] bytes(int n, char c) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) c);
    return b;
  }
}
