package io.ql3.worker.contract;

import java.util.ArrayList;
import java.util.List;

/**
 * Heartbeat response. {@code cancelRuns}: at most 32 run ids. Bounds, generation, version and
 * status are drift rules ({@link DriftCheck#heartbeat}).
 */
public record HeartbeatResponse(
    List<RunId> cancelRuns,
    long generation,
    long heartbeatIntervalMs,
    long leaseTtlMs,
    SessionStatus status,
    long version,
    boolean workAvailable) {
  public static final int MAX_CANCEL_RUNS = 32;
  static final String[] NAMES = {
    "cancelRuns",
    "generation",
    "heartbeatIntervalMs",
    "leaseTtlMs",
    "schema",
    "status",
    "version",
    "workAvailable"
  };

  public HeartbeatResponse {
    cancelRuns = List.copyOf(Check.present(cancelRuns, "/cancelRuns"));
    if (cancelRuns.size() > MAX_CANCEL_RUNS) {
      throw Check.outOfRange(
          "/cancelRuns", cancelRuns.size() + " runs, at most " + MAX_CANCEL_RUNS);
    }
    Check.integer(generation, "/generation");
    Check.integer(heartbeatIntervalMs, "/heartbeatIntervalMs");
    Check.integer(leaseTtlMs, "/leaseTtlMs");
    Check.present(status, "/status");
    Check.integer(version, "/version");
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(256);
    w.ascii("{\"cancelRuns\":[");
    for (int i = 0; i < cancelRuns.size(); i++) {
      if (i > 0) {
        w.raw(',');
      }
      w.string(cancelRuns.get(i).value());
    }
    w.ascii("],\"generation\":")
        .number(generation)
        .ascii(",\"heartbeatIntervalMs\":")
        .number(heartbeatIntervalMs)
        .ascii(",\"leaseTtlMs\":")
        .number(leaseTtlMs)
        .ascii(",\"schema\":\"qinglong/worker-session-heartbeat@v1\",\"status\":")
        .string(status.wire())
        .ascii(",\"version\":")
        .number(version)
        .ascii(",\"workAvailable\":")
        .bool(workAvailable)
        .raw('}');
    return w.toByteArray();
  }

  public static HeartbeatResponse parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.HEARTBEAT.responseCap(), NAMES);
      o.schema(Operation.HEARTBEAT.schema());
      List<JsonValue> cr = o.array("cancelRuns");
      if (cr.size() > MAX_CANCEL_RUNS) {
        throw new ContractViolation(
            ViolationReason.OUT_OF_RANGE,
            "/cancelRuns",
            cr.size() + " runs, at most " + MAX_CANCEL_RUNS);
      }
      List<RunId> cancel = new ArrayList<>(cr.size());
      for (int i = 0; i < cr.size(); i++) {
        String p = "/cancelRuns/" + i;
        try {
          cancel.add(RunId.of(Obj.stringElement(cr.get(i), p)));
        } catch (ContractViolation e) {
          throw e.pointer().isEmpty() ? e.under(p) : e;
        }
      }
      return new HeartbeatResponse(
          cancel,
          o.integer("generation"),
          o.integer("heartbeatIntervalMs"),
          o.integer("leaseTtlMs"),
          o.enumValue("status", SessionStatus.class),
          o.integer("version"),
          o.bool("workAvailable"));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
