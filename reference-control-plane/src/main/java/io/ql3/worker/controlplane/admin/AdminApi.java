package io.ql3.worker.controlplane.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ql3.worker.controlplane.ingress.ConnectionRegistry;
import io.ql3.worker.controlplane.ingress.RequestStats;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.FaultPlan;
import io.ql3.worker.controlplane.state.RunSubmission;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin API's routes, independent of HTTP plumbing: method + path + body in, status + JSON out.
 * Routes: GET /health, POST /runs, GET /runs, GET /runs/{id}, POST /runs/{id}/cancel, GET
 * /sessions, POST /workers/{id}/fence, GET /violations, GET /connections, GET|POST|DELETE /faults.
 */
public final class AdminApi {
  /** An admin answer. */
  public record Answer(int status, byte[] json) {}

  private final ControlPlane controlPlane;
  private final FaultPlan faults;
  private final ConnectionRegistry connections;
  private final RequestStats stats;
  private final Auditor auditor;
  private final ObjectMapper json = new ObjectMapper();

  public AdminApi(
      ControlPlane controlPlane,
      FaultPlan faults,
      ConnectionRegistry connections,
      RequestStats stats,
      Auditor auditor) {
    this.controlPlane = controlPlane;
    this.faults = faults;
    this.connections = connections;
    this.stats = stats;
    this.auditor = auditor;
  }

  public Answer handle(String method, String rawPath, byte[] body) {
    String path = rawPath.contains("?") ? rawPath.substring(0, rawPath.indexOf('?')) : rawPath;
    String[] seg = path.split("/", -1);
    try {
      if (method.equals("GET") && path.equals("/health")) {
        return ok(Map.of("ok", true));
      }
      if (path.equals("/runs")) {
        if (method.equals("POST")) {
          return ok(controlPlane.submit(submission(read(body))));
        }
        if (method.equals("GET")) {
          controlPlane.sweep();
          return ok(Map.of("runs", controlPlane.runs()));
        }
      }
      if (seg.length == 3 && seg[1].equals("runs") && method.equals("GET")) {
        controlPlane.sweep();
        return controlPlane
            .run(seg[2])
            .map(this::ok)
            .orElseGet(() -> error(404, "unknown run " + seg[2]));
      }
      if (seg.length == 4
          && seg[1].equals("runs")
          && seg[3].equals("cancel")
          && method.equals("POST")) {
        ControlPlane.CancelResult r = controlPlane.cancel(seg[2]);
        if (r == ControlPlane.CancelResult.UNKNOWN) {
          return error(404, "unknown run " + seg[2]);
        }
        return ok(Map.of("runId", seg[2], "result", r.name().toLowerCase(java.util.Locale.ROOT)));
      }
      if (path.equals("/sessions") && method.equals("GET")) {
        controlPlane.sweep();
        return ok(Map.of("workers", controlPlane.workers()));
      }
      if (seg.length == 4
          && seg[1].equals("workers")
          && seg[3].equals("fence")
          && method.equals("POST")) {
        boolean fenced = controlPlane.fenceWorker(seg[2]);
        return fenced
            ? ok(Map.of("workerId", seg[2], "fenced", true))
            : error(404, "worker " + seg[2] + " has no current session");
      }
      if (path.equals("/violations") && method.equals("GET")) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("total", auditor.total());
        Map<String, Long> counts = new LinkedHashMap<>();
        auditor.counts().forEach((k, v) -> counts.put(k.wire(), v));
        out.put("counts", counts);
        out.put(
            "violations",
            auditor.violations().stream()
                .map(
                    v -> {
                      Map<String, Object> m = new LinkedHashMap<>();
                      m.put("seq", v.seq());
                      m.put("atMs", v.atMillis());
                      m.put("kind", v.kind().wire());
                      m.put("workerId", v.workerId());
                      m.put("sessionId", v.sessionId());
                      m.put("detail", v.detail());
                      return m;
                    })
                .toList());
        return ok(out);
      }
      if (path.equals("/connections") && method.equals("GET")) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("open", connections.open());
        out.put("recentlyClosed", connections.recentlyClosed());
        out.put("requests", stats.snapshot());
        out.put("parkedPulls", controlPlane.parkedCount());
        return ok(out);
      }
      if (path.equals("/faults")) {
        switch (method) {
          case "GET" -> {
            return ok(Map.of("faults", faults.pending().stream().map(AdminApi::view).toList()));
          }
          case "DELETE" -> {
            faults.clear();
            return ok(Map.of("faults", List.of()));
          }
          case "POST" -> {
            return addFault(read(body));
          }
          default -> {
            return error(405, "method not allowed");
          }
        }
      }
      return error(404, "no admin route " + method + " " + path);
    } catch (IllegalArgumentException e) {
      return error(400, e.getMessage());
    } catch (IllegalStateException e) {
      return error(409, e.getMessage());
    }
  }

  private Answer addFault(JsonNode n) {
    String action = text(n, "action", null);
    if (action == null) {
      throw new IllegalArgumentException(
          "action is required: error, drop-after-apply, delay or close-connections");
    }
    if (action.equals("close-connections")) {
      return ok(Map.of("closed", connections.closeAll()));
    }
    Fault f =
        faults.add(
            text(n, "operation", null),
            Fault.Action.ofWire(action),
            (int) number(n, "status", 0),
            text(n, "code", null),
            (int) number(n, "retryAfter", -1),
            number(n, "delayMs", 0),
            (int) number(n, "count", 1));
    return ok(view(f));
  }

  /**
   * A fault as the admin API shows it: the same member names and action spelling as {@code POST
   * /faults}.
   */
  private static Map<String, Object> view(Fault f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", f.id());
    m.put("operation", f.operation());
    m.put("action", f.action().wire());
    m.put("count", f.remaining());
    if (f.action() == Fault.Action.ERROR) {
      m.put("status", f.status());
      m.put("code", f.code());
      m.put("retryAfter", f.retryAfterSeconds() < 0 ? null : f.retryAfterSeconds());
    }
    if (f.action() == Fault.Action.DELAY) {
      m.put("delayMs", f.delayMs());
    }
    return m;
  }

  private RunSubmission submission(JsonNode n) {
    JsonNode spec = n.get("spec");
    if (spec == null || !spec.isObject()) {
      throw new IllegalArgumentException("spec (a JSON object) is required");
    }
    Map<String, String> labels = null;
    JsonNode l = n.get("labels");
    if (l != null && !l.isNull()) {
      if (!l.isObject()) {
        throw new IllegalArgumentException("labels must be an object of strings");
      }
      labels = new LinkedHashMap<>();
      for (var e : l.properties()) {
        if (!e.getValue().isTextual()) {
          throw new IllegalArgumentException("labels must be an object of strings");
        }
        labels.put(e.getKey(), e.getValue().asText());
      }
    }
    byte[] specBytes;
    try {
      specBytes = json.writeValueAsBytes(spec);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("spec: " + e.getOriginalMessage());
    }
    return new RunSubmission(
        (int) number(n, "count", 1),
        text(n, "executor", null),
        specBytes,
        number(n, "timeoutMs", 60_000),
        text(n, "workerId", null),
        labels,
        text(n, "runId", null),
        text(n, "idempotencyKey", null),
        number(n, "delayMs", 0));
  }

  private JsonNode read(byte[] body) {
    try {
      JsonNode n = json.readTree(body);
      if (n == null || !n.isObject()) {
        throw new IllegalArgumentException("the body must be a JSON object");
      }
      return n;
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("bad JSON: " + e.getMessage());
    }
  }

  private static String text(JsonNode n, String name, String dflt) {
    JsonNode v = n.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(name + " must be a string");
    }
    return v.asText();
  }

  private static long number(JsonNode n, String name, long dflt) {
    JsonNode v = n.get(name);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber()) {
      throw new IllegalArgumentException(name + " must be an integer");
    }
    return v.asLong();
  }

  private Answer ok(Object value) {
    try {
      return new Answer(200, json.writeValueAsBytes(value));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private Answer error(int status, String message) {
    ObjectNode n = json.createObjectNode();
    n.put("error", message);
    return new Answer(status, n.toString().getBytes(StandardCharsets.UTF_8));
  }
}
