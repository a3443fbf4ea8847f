package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static io.ql3.worker.controlplane.SessionRulesTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Identity, credentials, caps, paths and headers: everything checked before the state machine. */
class IngressRulesTest {
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = new Harness();
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  @Test
  void pathWorkerIdOtherThanTheCertificateIdentityIs403() throws Exception {
    WorkerClient other = h.client(Harness.W2);
    assertError(
        other.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4)),
        403,
        "identity_mismatch",
        Operation.REGISTER);
    assertThat(h.cp().workers()).isEmpty();
    assertThat(h.violations(ViolationKind.IDENTITY_MISMATCH)).isEqualTo(1);
  }

  @Test
  void certificateWithoutUriSanProvesItsIdentityByCommonName() throws Exception {
    WorkerClient cnOnly = h.client("cn-only");
    assertThat(cnOnly.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4)).status())
        .isEqualTo(200);
  }

  @Test
  void tokenIsRereadWhenItsFileIsReplaced() throws Exception {
    WorkerClient c = h.client(W1);
    String old = c.token();
    byte[] body = Bodies.register(4, 4);
    String s = Bodies.newId();
    assertError(
        c.send(c.request(path(W1, s, "register"), body, "not-the-right-token-at-all").build()),
        401,
        "credential_rejected",
        Operation.REGISTER);
    DevPki pki = new DevPki(h.pki, Duration.ofDays(1));
    String fresh = pki.newToken();
    pki.writeToken(W1, fresh);
    assertError(
        c.send(c.request(path(W1, s, "register"), body, old).build()),
        401,
        "credential_rejected",
        Operation.REGISTER);
    assertThat(c.send(c.request(path(W1, s, "register"), body, fresh).build()).status())
        .isEqualTo(200);
    // A rejected request changed nothing: the one register above made generation 1.
    assertThat(h.cp().workers().get(0).generation()).isEqualTo(1);
  }

  @Test
  void missingOrMalformedTokenFileRejectsEveryToken() throws Exception {
    WorkerClient c = h.client(W1);
    String token = c.token();
    Files.writeString(h.pki.resolve("workers/edge-0001/token"), "short\n");
    assertError(
        c.send(
            c.request(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4), "short")
                .build()),
        401,
        "credential_rejected",
        Operation.REGISTER);
    Files.delete(h.pki.resolve("workers/edge-0001/token"));
    assertError(
        c.send(
            c.request(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4), token).build()),
        401,
        "credential_rejected",
        Operation.REGISTER);
  }

  @Test
  void bodyOverTheCapIs413() throws Exception {
    WorkerClient c = h.client(W1);
    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    byte[] atCap = new byte[4096];
    Arrays.fill(atCap, (byte) ' ');
    assertError(
        c.post(path(W1, s, "heartbeat"), atCap), 400, "contract_violation", Operation.HEARTBEAT);
    byte[] over = new byte[4097];
    Arrays.fill(over, (byte) ' ');
    try (SSLSocket socket = c.rawHttp1()) {
      socket
          .getOutputStream()
          .write(
              c.rawRequest(path(W1, s, "heartbeat"), over, over.length)
                  .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(over);
      socket.getOutputStream().flush();
      assertError(
          WorkerClient.readHttp1(socket.getInputStream()),
          413,
          "payload_too_large",
          Operation.HEARTBEAT);
    }
    assertThat(h.violations(ViolationKind.PAYLOAD_TOO_LARGE)).isEqualTo(1);
  }

  @Test
  void h2BodyWithoutLengthIsCutAtTheCapWith413AndResetNoError() throws Exception {
    try (H2TestClient h2 = new H2TestClient(h.pki, W1, h.port())) {
      H2TestClient.Answer a = h2.streamBody(path(W1, Bodies.newId(), "heartbeat"), 200_000);
      assertThat(a.status()).isEqualTo(413);
      assertThat(ErrorBody.parse(413, Operation.HEARTBEAT, a.body()).code().wire())
          .isEqualTo("payload_too_large");
      assertThat(a.resetCode()).isEqualTo(0L); // RST_STREAM NO_ERROR: stop sending
      // Answered once the cap was passed, long before the whole body was sent. The client counts a
      // 1 KiB frame only after its write completed, so its count may lag the server's view (which
      // passed 4096 bytes) by the one frame in flight when the answer arrived.
      assertThat(a.bytesSentBeforeAnswer()).isGreaterThan(4096 - 1024).isLessThan(200_000);
    }
    assertThat(h.violations(ViolationKind.PAYLOAD_TOO_LARGE)).isEqualTo(1);
  }

  @Test
  void declaredLengthOverTheCapIsRefusedBeforeReadingTheBody() throws Exception {
    WorkerClient c = h.client(W1);
    try (SSLSocket socket = c.rawHttp1()) {
      OutputStream out = socket.getOutputStream();
      out.write(
          c.rawRequest(path(W1, Bodies.newId(), "heartbeat"), null, 100_000_000L)
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // Nothing of the body is sent: the answer comes from the headers alone.
      WorkerClient.Res r = WorkerClient.readHttp1(socket.getInputStream());
      assertError(r, 413, "payload_too_large", Operation.HEARTBEAT);
      assertThat(r.version().toLowerCase()).contains("connection: close");
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void http11ConnectionStaysUsableAfterARefusal() throws Exception {
    WorkerClient c = h.client(W1);
    byte[] reg = Bodies.register(4, 4);
    String s = Bodies.newId();
    try (SSLSocket socket = c.rawHttp1()) {
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      byte[] pretty =
          (new String(Bodies.heartbeat(1, 1, 4, 4), StandardCharsets.UTF_8) + "\n")
              .getBytes(StandardCharsets.UTF_8);
      out.write(
          c.rawRequest(path(W1, s, "heartbeat"), pretty, pretty.length)
              .getBytes(StandardCharsets.US_ASCII));
      out.write(pretty);
      out.flush();
      assertError(WorkerClient.readHttp1(in), 400, "contract_violation", Operation.HEARTBEAT);
      out.write(
          c.rawRequest(path(W1, s, "register"), reg, reg.length)
              .getBytes(StandardCharsets.US_ASCII));
      out.write(reg);
      out.flush();
      assertThat(WorkerClient.readHttp1(in).status()).isEqualTo(200);
    }
    assertThat(h.violations(ViolationKind.NON_CANONICAL_BODY)).isEqualTo(1);
  }

  @Test
  void unknownPathsMethodsAndBadIdentifiers() throws Exception {
    WorkerClient c = h.client(W1);
    String s = Bodies.newId();
    assertError(
        c.post("/ql3w/v1/workers/edge-0001/sessions/" + s + "/status", new byte[0]),
        404,
        "unknown_operation",
        Operation.HEARTBEAT);
    assertError(c.post("/", new byte[0]), 404, "unknown_operation", Operation.HEARTBEAT);
    WorkerClient.Res get =
        c.send(
            HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + h.port() + path(W1, s, "heartbeat")))
                .header("authorization", "Bearer " + c.token())
                .GET()
                .build());
    assertError(get, 405, "unknown_operation", Operation.HEARTBEAT);
    assertError(
        c.post(
            "/ql3w/v1/workers/edge-0001/sessions/" + s.toUpperCase() + "/heartbeat",
            Bodies.heartbeat(1, 1, 4, 4)),
        400,
        "contract_violation",
        Operation.HEARTBEAT);
    assertThat(h.violations(ViolationKind.UNKNOWN_PATH)).isEqualTo(3);
  }

  @Test
  void contentTypeOtherThanJsonIs400() throws Exception {
    WorkerClient c = h.client(W1);
    WorkerClient.Res r =
        c.send(
            c.request(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4))
                .setHeader("content-type", "text/plain")
                .build());
    assertError(r, 400, "contract_violation", Operation.REGISTER);
    assertThat(h.violations(ViolationKind.BAD_HEADERS)).isEqualTo(1);
  }
}
