package io.ql3.worker.contract;

/** Transition response. Bounds, generation, version and status: {@link DriftCheck#transition}. */
public record TransitionResponse(
    long generation, long leaseTtlMs, SessionStatus status, long version) {
  static final String[] NAMES = {"generation", "leaseTtlMs", "schema", "status", "version"};

  public TransitionResponse {
    Check.integer(generation, "/generation");
    Check.integer(leaseTtlMs, "/leaseTtlMs");
    Check.present(status, "/status");
    Check.integer(version, "/version");
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(160);
    w.ascii("{\"generation\":")
        .number(generation)
        .ascii(",\"leaseTtlMs\":")
        .number(leaseTtlMs)
        .ascii(",\"schema\":\"qinglong/worker-session-transition@v1\",\"status\":")
        .string(status.wire())
        .ascii(",\"version\":")
        .number(version)
        .raw('}');
    return w.toByteArray();
  }

  public static TransitionResponse parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.TRANSITION.responseCap(), NAMES);
      o.schema(Operation.TRANSITION.schema());
      return new TransitionResponse(
          o.integer("generation"),
          o.integer("leaseTtlMs"),
          o.enumValue("status", SessionStatus.class),
          o.integer("version"));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
