package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.controlplane.state.RunSubmission;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract's request vectors (copied from shared/contract/vectors/requests) fed to the server:
 * every valid one accepted in a state where it applies, every invalid one refused with the right
 * status and code and without any change of server state.
 */
class VectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SESSION = "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d";
  private static final String PROCESS_SPEC = "{\"argv\":[\"true\"],\"cwd\":null,\"env\":{}}";

  private Harness h;
  private WorkerClient c;

  @BeforeEach
  void start() throws Exception {
    h = new Harness();
    c = h.client(W1);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  static byte[] bytes(String file) throws Exception {
    try (InputStream in = VectorsTest.class.getResourceAsStream("/vectors/requests/" + file)) {
      assertThat(in).as(file).isNotNull();
      return in.readAllBytes();
    }
  }

  static List<JsonNode> index(String dir) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    JSON.readTree(bytes(dir + "index.json")).forEach(out::add);
    return out;
  }

  private WorkerClient.Res post(JsonNode entry, String dir) throws Exception {
    return c.post(entry.get("path").asText(), bytes(dir + entry.get("file").asText()));
  }

  private JsonNode valid(String file) throws Exception {
    return index("").stream()
        .filter(e -> e.get("file").asText().equals(file))
        .findFirst()
        .orElseThrow();
  }

  private void accept(String file) throws Exception {
    WorkerClient.Res r = post(valid(file), "");
    assertThat(r.status()).as(file + ": " + r.text()).isEqualTo(200);
  }

  @Test
  void sessionVectorsAreAcceptedInOrder() throws Exception {
    h.cp().seedGeneration(W1, 6);
    accept("register-edge.json");
    h.clock.advance(10_000);
    accept("heartbeat-active.json");
    accept("transition-active-draining.json");
    h.clock.advance(10_000);
    accept("heartbeat-draining.json");
    accept("transition-draining-offline.json");
    assertThat(h.cp().workers().get(0).sessions().get(0).status()).isEqualTo("offline");
  }

  @Test
  void activeToOfflineAndPullVectorsAreAccepted() throws Exception {
    h.cp().seedGeneration(W1, 6);
    accept("register-edge.json");
    submit("run-1"); // pull.json parks up to 20 s when nothing is queued
    accept("pull.json");
    h.clock.advance(10_000);
    accept("heartbeat-active.json");
    accept("transition-active-offline.json");
  }

  @Test
  void otherRegisterVectorsAreAccepted() throws Exception {
    for (JsonNode e : index("")) {
      if (e.get("operation").asText().equals("register")) {
        WorkerClient.Res r = post(e, "");
        assertThat(r.status()).as(e.get("file").asText() + ": " + r.text()).isEqualTo(200);
      }
    }
    assertThat(h.cp().workers().get(0).generation()).isEqualTo(4);
  }

  @Test
  void completeVectorsAreAcceptedForTheRunsLeasedToThatSession() throws Exception {
    h.cp().seedGeneration(W1, 5);
    // Run 118 is completed at attempt 2: attempt 1 goes to an earlier session, which is then
    // fenced.
    submit("run-20241203-000118");
    String earlier = Bodies.newId();
    assertThat(c.post(path(W1, earlier, "register"), Bodies.register(4, 4)).status())
        .isEqualTo(200);
    assertThat(
            PullResponse.parse(
                    c.post(path(W1, earlier, "pull"), Bodies.pull(6, 1, Bodies.newId(), 0)).body())
                .offers())
        .hasSize(1);
    accept("register-edge.json");
    for (String id : List.of("117", "119", "120", "121", "122", "123")) {
      submit("run-20241203-000" + id);
    }
    int leased = 0;
    for (int i = 0; i < 2; i++) {
      leased +=
          PullResponse.parse(
                  c.post(path(W1, SESSION, "pull"), Bodies.pull(7, 4, Bodies.newId(), 0)).body())
              .offers()
              .size();
    }
    assertThat(leased).isEqualTo(7);
    for (JsonNode e : index("")) {
      if (e.get("operation").asText().equals("complete")) {
        WorkerClient.Res r = post(e, "");
        assertThat(r.status()).as(e.get("file").asText() + ": " + r.text()).isEqualTo(200);
        assertThat(CompleteResponse.parse(r.body()).disposition()).isEqualTo(Disposition.ACCEPTED);
      }
    }
    assertThat(h.cp().run("run-20241203-000120").orElseThrow().state()).isEqualTo("quarantined");
    assertThat(h.cp().run("run-20241203-000117").orElseThrow().state()).isEqualTo("completed");
  }

  private void submit(String runId) {
    h.cp()
        .submit(
            new RunSubmission(
                1,
                "process",
                PROCESS_SPEC.getBytes(StandardCharsets.UTF_8),
                60_000,
                null,
                Map.of(),
                runId,
                null,
                0));
  }

  @Test
  void invalidVectorsAreRefusedBeforeAnyStateChange() throws Exception {
    h.cp().seedGeneration(W1, 6);
    accept("register-edge.json");
    submit("run-20241203-000117");
    submit("run-20241203-000118");
    submit("run-20241203-000121");
    c.post(path(W1, SESSION, "pull"), Bodies.pull(7, 3, Bodies.newId(), 0));
    h.clock.advance(10_000);
    List<JsonNode> invalid = index("invalid/");
    assertThat(invalid).hasSizeGreaterThan(60);
    for (JsonNode e : invalid) {
      String file = e.get("file").asText();
      String reason = e.get("reason").asText();
      Operation op = Operation.fromWireName(e.get("operation").asText());
      String before = state();
      WorkerClient.Res r;
      try {
        r = reason.equals("over_cap") ? postOverCapHttp1(e) : post(e, "invalid/");
      } catch (java.io.IOException ex) {
        throw new AssertionError(file + ": " + ex + "; server events: " + h.events, ex);
      }
      int status = reason.equals("over_cap") ? 413 : 400;
      String code = reason.equals("over_cap") ? "payload_too_large" : "contract_violation";
      assertThat(r.status()).as(file + " (" + reason + "): " + r.text()).isEqualTo(status);
      assertThat(ErrorBody.parse(status, op, r.body()).code().wire()).as(file).isEqualTo(code);
      assertThat(state()).as(file + " changed server state").isEqualTo(before);
    }
    // Every refusal is on the auditor's list, and the valid requests still work afterwards.
    assertThat(h.server.auditor().total()).isGreaterThanOrEqualTo(invalid.size());
    accept("heartbeat-active.json");
  }

  /**
   * Over-cap bodies go over a raw HTTP/1.1 socket: the server answers 413 from the declared length
   * and closes. (Over h2 it answers 413 and resets the stream with NO_ERROR, which JDK 17's
   * HttpClient reports as an IOException when it had not finished sending.)
   */
  private WorkerClient.Res postOverCapHttp1(JsonNode e) throws Exception {
    byte[] body = bytes("invalid/" + e.get("file").asText());
    try (javax.net.ssl.SSLSocket socket = c.rawHttp1()) {
      socket
          .getOutputStream()
          .write(
              c.rawRequest(e.get("path").asText(), body, body.length)
                  .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return WorkerClient.readHttp1(socket.getInputStream());
    }
  }

  private String state() throws Exception {
    return JSON.writeValueAsString(List.of(h.cp().workers(), h.cp().runs()));
  }
}
