package io.ql3.worker.contract;

import java.util.Optional;

/**
 * Register response. Parsing checks JSON rules, closed objects, types and identifiers; bounds,
 * generation, version and status are drift rules checked by {@link DriftCheck#register}.
 *
 * @param replaced the previous session, or null when none was replaced
 */
public record RegisterResponse(
    long generation,
    long heartbeatIntervalMs,
    long leaseTtlMs,
    Replaced replaced,
    SessionStatus status,
    long version) {
  static final String[] NAMES = {
    "generation", "heartbeatIntervalMs", "leaseTtlMs", "replaced", "schema", "status", "version"
  };

  public RegisterResponse {
    Check.integer(generation, "/generation");
    Check.integer(heartbeatIntervalMs, "/heartbeatIntervalMs");
    Check.integer(leaseTtlMs, "/leaseTtlMs");
    Check.present(status, "/status");
    Check.integer(version, "/version");
  }

  public Optional<Replaced> replacedSession() {
    return Optional.ofNullable(replaced);
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(256);
    w.ascii("{\"generation\":")
        .number(generation)
        .ascii(",\"heartbeatIntervalMs\":")
        .number(heartbeatIntervalMs)
        .ascii(",\"leaseTtlMs\":")
        .number(leaseTtlMs)
        .ascii(",\"replaced\":");
    if (replaced == null) {
      w.nul();
    } else {
      replaced.write(w);
    }
    w.ascii(",\"schema\":")
        .string(Operation.REGISTER.schema())
        .ascii(",\"status\":")
        .string(status.wire())
        .ascii(",\"version\":")
        .number(version)
        .raw('}');
    return w.toByteArray();
  }

  public static RegisterResponse parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.REGISTER.responseCap(), NAMES);
      o.schema(Operation.REGISTER.schema());
      long g = o.integer("generation");
      long h = o.integer("heartbeatIntervalMs");
      long l = o.integer("leaseTtlMs");
      Obj r = o.nullableObject("replaced", Replaced.NAMES);
      Replaced replaced = r == null ? null : Replaced.read(r);
      SessionStatus status = o.enumValue("status", SessionStatus.class);
      long v = o.integer("version");
      return new RegisterResponse(g, h, l, replaced, status, v);
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
