package io.ql3.worker.bench.transport;

import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.OperationPath;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.IngressResult;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
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
 * One heartbeat round trip over one warm TLS 1.3 mTLS connection on loopback: the IngressClient
 * (credential check, canonical bytes, caps, deadline, classification, strict parse) against a bare
 * Netty client sending the same bytes (the floor). Sample mode gives p50/p99.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class HeartbeatRoundTripBenchmark {
  static final byte[] HEARTBEAT =
      ("{\"capacity\":{\"availableSlots\":3,\"maxConcurrentRuns\":4},\"generation\":7,"
              + "\"runs\":{\"active\":1,\"pendingCompletions\":0},\"schema\":\"qinglong/worker-session-heartbeat@v1\","
              + "\"status\":\"active\",\"version\":1}")
          .getBytes(StandardCharsets.UTF_8);
  static final String SESSION = "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d";

  @Param({"h2", "http1.1"})
  public String protocol;

  @Param({"ingress", "bare"})
  public String client;

  private Path dir;
  private BenchIngressServer server;
  private IngressClient ingress;
  private BareNettyClient bare;
  private HeartbeatRequest request;
  private SessionId session;
  private String path;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    BenchPki pki = new BenchPki();
    server = new BenchIngressServer(pki, protocol.equals("h2"));
    request = HeartbeatRequest.parse(HEARTBEAT);
    session = SessionId.of(SESSION);
    path = OperationPath.heartbeat(WorkerId.of(BenchPki.WORKER), session).path();
    if (client.equals("ingress")) {
      dir = Files.createTempDirectory("bench-transport");
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
      if (!heartbeat().isSuccess()) {
        throw new IllegalStateException("warm-up heartbeat failed");
      }
      String negotiated = ingress.protocol();
      if (!negotiated.equals(protocol.equals("h2") ? "h2" : "http/1.1")) {
        throw new IllegalStateException("negotiated " + negotiated);
      }
    } else {
      bare = new BareNettyClient(pki, server.port(), protocol.equals("h2"));
    }
  }

  private IngressResult<HeartbeatResponse> heartbeat() throws Exception {
    return ingress.heartbeat(session, request).get(10, TimeUnit.SECONDS);
  }

  @Benchmark
  public Object roundTrip() throws Exception {
    if (ingress != null) {
      IngressResult<HeartbeatResponse> r = heartbeat();
      if (!r.isSuccess()) {
        throw new IllegalStateException(r.toString());
      }
      return r.value();
    }
    return bare.roundTrip(path, HEARTBEAT);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (ingress != null) {
      if (ingress.connectionsOpened() != 1) {
        throw new IllegalStateException(
            "expected one connection, saw " + ingress.connectionsOpened());
      }
      ingress.close();
    }
    if (bare != null) {
      bare.close();
    }
    server.close();
  }
}
