package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.PullResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin HTTP API on 127.0.0.1: runs, sessions, violations, connections, cancel, fence, faults.
 */
class AdminApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient admin =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
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

  private record Answer(int status, JsonNode json) {}

  private Answer call(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + h.server.adminAddress().getPort() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = admin.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), JSON.readTree(r.body()));
  }

  @Test
  void adminListensOnLoopbackOnly() {
    assertThat(h.server.adminAddress().getAddress().isLoopbackAddress()).isTrue();
  }

  @Test
  void submitListCancelAndSessions() throws Exception {
    Answer sub =
        call(
            "POST",
            "/runs",
            "{\"count\":3,\"executor\":\"sleep\",\"spec\":{\"ms\":10},\"timeoutMs\":5000,"
                + "\"workerId\":\"edge-0001\"}");
    assertThat(sub.status()).isEqualTo(200);
    assertThat(sub.json().get("runIds")).hasSize(3);
    String first = sub.json().get("runIds").get(0).asText();

    String s = Bodies.newId();
    c.post(path(W1, s, "register"), Bodies.register(4, 4));
    PullResponse p =
        PullResponse.parse(
            c.post(path(W1, s, "pull"), Bodies.pull(1, 1, Bodies.newId(), 0)).body());
    assertThat(p.offers().get(0).runId().value()).isEqualTo(first);

    Answer cancel = call("POST", "/runs/" + first + "/cancel", "{}");
    assertThat(cancel.json().get("result").asText()).isEqualTo("cancel_requested");
    h.clock.advance(10_000);
    assertThat(
            HeartbeatResponse.parse(
                    c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(1, 1, 3, 4)).body())
                .cancelRuns())
        .extracting(r -> r.value())
        .containsExactly(first);
    String second = sub.json().get("runIds").get(1).asText();
    assertThat(call("POST", "/runs/" + second + "/cancel", "{}").json().get("result").asText())
        .isEqualTo("cancelled");

    Answer runs = call("GET", "/runs", null);
    assertThat(runs.json().get("runs")).hasSize(3);
    assertThat(runs.json().get("runs").get(0).get("state").asText()).isEqualTo("leased");
    assertThat(runs.json().get("runs").get(0).get("cancelRequested").asBoolean()).isTrue();
    assertThat(runs.json().get("runs").get(1).get("state").asText()).isEqualTo("cancelled");

    Answer sessions = call("GET", "/sessions", null);
    JsonNode w = sessions.json().get("workers").get(0);
    assertThat(w.get("workerId").asText()).isEqualTo(W1);
    assertThat(w.get("currentSessionId").asText()).isEqualTo(s);
    assertThat(w.get("sessions").get(0).get("version").asLong()).isEqualTo(2);
    assertThat(w.get("sessions").get(0).get("leasedRuns")).hasSize(1);

    assertThat(call("POST", "/workers/edge-0001/fence", "{}").status()).isEqualTo(200);
    assertThat(
            call("GET", "/sessions", null)
                .json()
                .get("workers")
                .get(0)
                .get("sessions")
                .get(0)
                .get("fenced")
                .asBoolean())
        .isTrue();
    assertThat(call("POST", "/workers/edge-0001/fence", "{}").status()).isEqualTo(404);
  }

  @Test
  void badSubmissionsAreRefusedWithAReason() throws Exception {
    Answer noSpec = call("POST", "/runs", "{\"executor\":\"noop\"}");
    assertThat(noSpec.status()).isEqualTo(400);
    assertThat(noSpec.json().get("error").asText()).contains("spec");
    assertThat(call("POST", "/runs", "{\"executor\":\"Bad\",\"spec\":{}}").status()).isEqualTo(400);
    assertThat(call("POST", "/runs", "{\"executor\":\"noop\",\"spec\":{\"x\":1.5}}").status())
        .isEqualTo(400);
    assertThat(call("POST", "/runs", "not json").status()).isEqualTo(400);
    assertThat(call("GET", "/nope", null).status()).isEqualTo(404);
  }

  @Test
  void violationsConnectionsAndFaults() throws Exception {
    assertThat(call("GET", "/violations", null).json().get("total").asLong()).isZero();
    c.post(path(W1, Bodies.newId(), "nope"), new byte[0]);
    Answer v = call("GET", "/violations", null);
    assertThat(v.json().get("total").asLong()).isEqualTo(1);
    assertThat(v.json().get("violations").get(0).get("kind").asText()).isEqualTo("unknown_path");

    Answer conns = call("GET", "/connections", null);
    assertThat(conns.json().get("open")).hasSize(1);
    assertThat(conns.json().get("open").get(0).get("workerId").asText()).isEqualTo(W1);
    assertThat(conns.json().get("open").get(0).get("protocol").asText()).isEqualTo("h2");
    assertThat(conns.json().get("requests").get("unknown 404").asLong()).isEqualTo(1);

    Answer add =
        call(
            "POST",
            "/faults",
            "{\"operation\":\"register\",\"action\":\"error\",\"status\":429,"
                + "\"code\":\"rate_limited\",\"retryAfter\":1,\"count\":1}");
    assertThat(add.status()).isEqualTo(200);
    JsonNode pending = call("GET", "/faults", null).json().get("faults");
    assertThat(pending).hasSize(1);
    assertThat(pending.get(0).get("action").asText()).isEqualTo("error");
    assertThat(pending.get(0).get("count").asInt()).isEqualTo(1);
    assertThat(c.post(path(W1, Bodies.newId(), "register"), Bodies.register(2, 2)).status())
        .isEqualTo(429);
    assertThat(
            call(
                    "POST",
                    "/faults",
                    "{\"action\":\"error\",\"status\":409,\"code\":\"rate_limited\"}")
                .status())
        .isEqualTo(400);
    call("POST", "/faults", "{\"action\":\"delay\",\"delayMs\":5}");
    assertThat(call("DELETE", "/faults", null).json().get("faults")).isEmpty();
    assertThat(
            call("POST", "/faults", "{\"action\":\"close-connections\"}")
                .json()
                .get("closed")
                .asInt())
        .isEqualTo(1);
  }
}
