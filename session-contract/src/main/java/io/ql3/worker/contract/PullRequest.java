package io.ql3.worker.contract;

/**
 * Pull request: {@code maxRuns} 1..64 (and at most the registered {@code pullPage}, checked by
 * {@link #parse(byte[], int)}), {@code waitMs} 0..60000.
 */
public record PullRequest(long generation, int maxRuns, PullId pullId, int waitMs) {
  public static final int MAX_WAIT_MS = 60000;
  static final String[] NAMES = {"generation", "maxRuns", "pullId", "schema", "waitMs"};

  public PullRequest {
    Check.integer(generation, "/generation");
    Check.range(maxRuns, 1, Limits.MAX_PULL_PAGE, "/maxRuns");
    Check.present(pullId, "/pullId");
    Check.range(waitMs, 0, MAX_WAIT_MS, "/waitMs");
  }

  public Operation operation() {
    return Operation.PULL;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(160);
    w.ascii("{\"generation\":")
        .number(generation)
        .ascii(",\"maxRuns\":")
        .number(maxRuns)
        .ascii(",\"pullId\":")
        .string(pullId.value())
        .ascii(",\"schema\":\"qinglong/worker-execution-pull@v1\",\"waitMs\":")
        .number(waitMs)
        .raw('}');
    return w.toByteArray();
  }

  /** Server-side strict parse, canonical form included (maxRuns checked against 1..64 only). */
  public static PullRequest parse(byte[] body) throws ContractViolation {
    return parse(body, Limits.MAX_PULL_PAGE);
  }

  /**
   * As {@link #parse(byte[])}, and {@code maxRuns} must not exceed the session's registered {@code
   * pullPage}.
   */
  public static PullRequest parse(byte[] body, int pullPage) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.PULL.requestCap(), NAMES);
      o.schema(Operation.PULL.schema());
      long g = o.integer("generation");
      long maxRuns = o.integer("maxRuns", 1, Limits.MAX_PULL_PAGE);
      if (maxRuns > pullPage) {
        throw new ContractViolation(
            ViolationReason.OUT_OF_RANGE,
            "/maxRuns",
            "maxRuns " + maxRuns + " > pullPage " + pullPage);
      }
      PullId id;
      try {
        id = PullId.of(o.string("pullId"));
      } catch (ContractViolation e) {
        throw e.pointer().isEmpty() ? e.under("/pullId") : e;
      }
      long wait = o.integer("waitMs", 0, MAX_WAIT_MS);
      PullRequest r = new PullRequest(g, (int) maxRuns, id, (int) wait);
      Obj.requireCanonical(body, r.toCanonicalBytes());
      return r;
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
