package io.ql3.worker.runtime.status;

import io.ql3.worker.contract.CanonicalJson;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.JsonReader;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.JsonValue.JsonNull;
import io.ql3.worker.contract.JsonValue.JsonNumber;
import io.ql3.worker.contract.JsonValue.JsonObject;
import io.ql3.worker.contract.JsonValue.JsonString;
import io.ql3.worker.runtime.log.LogTimestamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The status file: one JSON object, replaced atomically (a reader never sees half of it). Written
 * by the running agent, read by {@code ql3-worker status}.
 */
public final class StatusFile {
  /** The running agent rewrites the file at most this often (and on its last step). */
  public static final java.time.Duration WRITE_INTERVAL = java.time.Duration.ofSeconds(1);

  private final AtomicFile file;

  public StatusFile(Path path) {
    this.file = new AtomicFile(path, false, AtomicFile.Readers.AGENT_GROUP);
  }

  public Path path() {
    return file.path();
  }

  public void write(StatusSnapshot s) throws IOException {
    file.replace(toJson(s));
  }

  /** Reads the file as a flat map of its members (strings, numbers, null). */
  public static Map<String, Object> read(Path path) throws IOException, ContractViolation {
    JsonValue v = JsonReader.parse(Files.readAllBytes(path));
    if (!(v instanceof JsonObject o)) {
      throw new IOException(path + " is not a status object");
    }
    Map<String, Object> out = new java.util.TreeMap<>();
    for (Map.Entry<String, JsonValue> e : o.members().entrySet()) {
      JsonValue x = e.getValue();
      out.put(
          e.getKey(),
          x instanceof JsonString str
              ? str.value()
              : x instanceof JsonNumber n ? (Object) n.value() : null);
    }
    return out;
  }

  static byte[] toJson(StatusSnapshot s) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    m.put("updatedAt", str(LogTimestamp.toString(s.updatedAt())));
    m.put("pid", num(s.pid()));
    m.put("workerId", str(s.workerId()));
    m.put("profile", str(s.profile()));
    m.put("phase", str(s.phase()));
    m.put("sessionId", str(s.sessionId()));
    m.put("generation", num(s.generation()));
    m.put("version", num(s.version()));
    m.put("sessionState", str(s.sessionState()));
    m.put("leaseRemainingMs", num(s.leaseRemainingMs()));
    m.put("heartbeatIntervalMs", num(s.heartbeatIntervalMs()));
    m.put("availableSlots", num(s.availableSlots()));
    m.put("maxConcurrentRuns", num(s.maxConcurrentRuns()));
    m.put("capacityLimitedBy", str(s.capacityLimitedBy()));
    m.put("runsActive", num(s.runsActive()));
    m.put("pendingCompletions", num(s.pendingCompletions()));
    m.put("protocol", str(s.protocol()));
    m.put("connectionsOpened", num(s.connectionsOpened()));
    m.put("certificateDaysToExpiry", num(Math.max(0, s.certificateDaysToExpiry())));
    m.put("lastProblem", str(s.lastProblem()));
    m.put("isolation", str(s.isolation()));
    byte[] body = CanonicalJson.toBytes(new JsonObject(m));
    byte[] withNewline = new byte[body.length + 1];
    System.arraycopy(body, 0, withNewline, 0, body.length);
    withNewline[body.length] = '\n';
    return withNewline;
  }

  private static JsonValue str(String s) {
    return s == null ? JsonNull.INSTANCE : new JsonString(s);
  }

  private static JsonValue num(long n) {
    return new JsonNumber(Math.max(0, n));
  }
}
