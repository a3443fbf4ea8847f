package io.ql3.worker.transport;

import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.credentials.CredentialProvider;
import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.MutableClock;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.TestServer;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One CA, a server certificate for 127.0.0.1/localhost and a client certificate for the vectors'
 * worker.
 */
final class Fixture {
  final TestPki.Issued ca = TestPki.rootCa("ql3w test CA");
  final TestPki.Issued server = ca.issue(TestPki.Spec.forServer());
  final TestPki.Issued client = ca.issue(TestPki.Spec.forClient(Vectors.WORKER));
  final MutableClock clock = new MutableClock(Instant.now());
  final CredentialDir creds;

  Fixture(Path dir) throws Exception {
    creds = new CredentialDir(dir.resolve("creds")).write(client, ca, CredentialDir.TOKEN);
  }

  CredentialProvider provider() throws Exception {
    return CredentialProvider.load(
        creds.files(), Vectors.WORKER, clock, CredentialProvider.Settings.defaults());
  }

  TestServer.Builder serverBuilder() {
    return TestServer.builder().certificate(server).clientCa(ca.cert());
  }

  static TransportSettings settings() {
    return TransportSettings.defaults("0.1.0-test")
        .withResponseTimeout(Duration.ofSeconds(10))
        .withBackoff(Duration.ofMillis(50), Duration.ofMillis(400));
  }

  IngressClient client(TestServer s) throws Exception {
    return client(s, settings());
  }

  IngressClient client(TestServer s, TransportSettings settings) throws Exception {
    return client(s, "127.0.0.1", settings);
  }

  /** A client that dials {@code host} (which must resolve to 127.0.0.1). */
  IngressClient client(TestServer s, String host, TransportSettings settings) throws Exception {
    return IngressClient.open(
        new IngressEndpoint(host, s.port()), WorkerId.of(Vectors.WORKER), provider(), settings);
  }

  /** Sends the vectors' active heartbeat and says whether it succeeded (within 10 s). */
  static boolean heartbeatSucceeds(IngressClient client, SessionId session) throws Exception {
    return client
        .heartbeat(session, HeartbeatRequest.parse(Vectors.request("heartbeat-active.json")))
        .get(10, TimeUnit.SECONDS)
        .isSuccess();
  }

  /** Answers every operation with a valid vector response. */
  static CompletableFuture<TestServer.Reply> vectorAnswer(TestServer.Request r) {
    String p = r.path();
    String file =
        p.endsWith("/register")
            ? "register-edge-fresh.json"
            : p.endsWith("/heartbeat")
                ? "heartbeat-active.json"
                : p.endsWith("/transition")
                    ? "transition-draining.json"
                    : p.endsWith("/pull") ? "pull-empty.json" : "complete-succeeded.json";
    return CompletableFuture.completedFuture(
        new TestServer.Respond(200, java.util.Map.of(), Vectors.response(file)));
  }
}
