package io.ql3.worker.contract;

/** The worker's previous session, fenced by this register (register response {@code replaced}). */
public record Replaced(long generation, SessionId sessionId, ReplacedStatus status) {
  static final String[] NAMES = {"generation", "sessionId", "status"};

  public Replaced {
    Check.integer(generation, "/generation");
    Check.present(sessionId, "/sessionId");
    Check.present(status, "/status");
  }

  static Replaced read(Obj o) throws ContractViolation {
    long g = o.integer("generation");
    SessionId s;
    try {
      s = SessionId.of(o.string("sessionId"));
    } catch (ContractViolation e) {
      throw e.under(o.at("sessionId"));
    }
    return new Replaced(g, s, o.enumValue("status", ReplacedStatus.class));
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"generation\":")
        .number(generation)
        .ascii(",\"sessionId\":")
        .string(sessionId.value())
        .ascii(",\"status\":")
        .string(status.wire())
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(128);
    write(w);
    return w.toByteArray();
  }

  public static Replaced parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
