package io.ql3.worker.contract;

/**
 * What a run produced: {@code exitCode} null (no exit status) or 0..255; {@code outputTail} at most
 * 16384 bytes in canonical escaped form (build it with {@link OutputTail}).
 */
public record RunResult(long durationMs, Integer exitCode, long outputBytes, String outputTail) {
  public static final int MAX_OUTPUT_TAIL_BYTES = 16384;
  static final String[] NAMES = {"durationMs", "exitCode", "outputBytes", "outputTail"};

  public RunResult {
    Check.integer(durationMs, "/durationMs");
    if (exitCode != null) {
      Check.range(exitCode, 0, 255, "/exitCode");
    }
    Check.integer(outputBytes, "/outputBytes");
    Check.scalar(Check.present(outputTail, "/outputTail"), "/outputTail");
    int escaped = CanonicalWriter.escapedLength(outputTail);
    if (escaped > MAX_OUTPUT_TAIL_BYTES) {
      throw Check.outOfRange(
          "/outputTail",
          "outputTail is " + escaped + " bytes escaped, at most " + MAX_OUTPUT_TAIL_BYTES);
    }
  }

  /** Nothing ran: duration 0, no exit code, no output. */
  public static final RunResult NOT_RUN = new RunResult(0, null, 0, "");

  static RunResult read(Obj o) throws ContractViolation {
    long d = o.integer("durationMs");
    Long exit = o.nullableInteger("exitCode");
    long ob = o.integer("outputBytes");
    String tail = o.string("outputTail");
    try {
      return new RunResult(d, exit == null ? null : Obj.clamp(exit), ob, tail);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"durationMs\":").number(durationMs).ascii(",\"exitCode\":");
    if (exitCode == null) {
      w.nul();
    } else {
      w.number(exitCode);
    }
    w.ascii(",\"outputBytes\":")
        .number(outputBytes)
        .ascii(",\"outputTail\":")
        .string(outputTail)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(128 + outputTail.length());
    write(w);
    return w.toByteArray();
  }

  public static RunResult parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
