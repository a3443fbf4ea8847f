package io.ql3.worker.contract;

/**
 * Runs the client holds: {@code active} executing, {@code pendingCompletions} finished but not yet
 * completed.
 */
public record RunCounts(long active, long pendingCompletions) {
  static final String[] NAMES = {"active", "pendingCompletions"};

  public RunCounts {
    Check.integer(active, "/active");
    Check.integer(pendingCompletions, "/pendingCompletions");
  }

  static RunCounts read(Obj o) throws ContractViolation {
    return new RunCounts(o.integer("active"), o.integer("pendingCompletions"));
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"active\":")
        .number(active)
        .ascii(",\"pendingCompletions\":")
        .number(pendingCompletions)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(48);
    write(w);
    return w.toByteArray();
  }

  public static RunCounts parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
