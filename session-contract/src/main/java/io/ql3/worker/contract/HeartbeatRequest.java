package io.ql3.worker.contract;

/**
 * Heartbeat request: {@code status} active or draining (the one the client holds), {@code version}
 * ≥ 1 (the one it holds); while draining {@code availableSlots} is 0 ({@link
 * ViolationReason#DRAINING_WITH_SLOTS}).
 */
public record HeartbeatRequest(
    Capacity capacity, long generation, RunCounts runs, SessionStatus status, long version) {
  static final String[] NAMES = {"capacity", "generation", "runs", "schema", "status", "version"};

  public HeartbeatRequest {
    Check.present(capacity, "/capacity");
    Check.integer(generation, "/generation");
    Check.present(runs, "/runs");
    Check.present(status, "/status");
    if (status == SessionStatus.OFFLINE) {
      throw Check.outOfRange("/status", "a heartbeat status is active or draining");
    }
    Check.range(version, 1, JsonValue.MAX_INTEGER, "/version");
    if (status == SessionStatus.DRAINING && capacity.availableSlots() != 0) {
      throw new InvalidWireValueException(
          ViolationReason.DRAINING_WITH_SLOTS,
          "/capacity/availableSlots",
          "draining with availableSlots " + capacity.availableSlots());
    }
  }

  public Operation operation() {
    return Operation.HEARTBEAT;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(200);
    w.ascii("{\"capacity\":");
    capacity.write(w);
    w.ascii(",\"generation\":").number(generation).ascii(",\"runs\":");
    runs.write(w);
    w.ascii(",\"schema\":\"qinglong/worker-session-heartbeat@v1\",\"status\":")
        .string(status.wire())
        .ascii(",\"version\":")
        .number(version)
        .raw('}');
    return w.toByteArray();
  }

  /** Server-side strict parse, canonical form included. */
  public static HeartbeatRequest parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.HEARTBEAT.requestCap(), NAMES);
      o.schema(Operation.HEARTBEAT.schema());
      Capacity c = Capacity.read(o.object("capacity", Capacity.NAMES));
      long g = o.integer("generation");
      RunCounts runs = RunCounts.read(o.object("runs", RunCounts.NAMES));
      SessionStatus s = o.enumValue("status", SessionStatus.class);
      long v = o.integer("version");
      HeartbeatRequest r = new HeartbeatRequest(c, g, runs, s, v);
      Obj.requireCanonical(body, r.toCanonicalBytes());
      return r;
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
