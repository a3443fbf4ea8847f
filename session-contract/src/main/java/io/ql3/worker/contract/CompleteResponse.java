package io.ql3.worker.contract;

/**
 * Complete response; {@code runId}/{@code attempt} must equal the request's ({@link
 * DriftCheck#complete}).
 */
public record CompleteResponse(long attempt, Disposition disposition, RunId runId) {
  static final String[] NAMES = {"attempt", "disposition", "runId", "schema"};

  public CompleteResponse {
    Check.range(attempt, 1, JsonValue.MAX_INTEGER, "/attempt");
    Check.present(disposition, "/disposition");
    Check.present(runId, "/runId");
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(160);
    w.ascii("{\"attempt\":")
        .number(attempt)
        .ascii(",\"disposition\":")
        .string(disposition.wire())
        .ascii(",\"runId\":")
        .string(runId.value())
        .ascii(",\"schema\":\"qinglong/worker-execution-complete@v1\"}");
    return w.toByteArray();
  }

  public static CompleteResponse parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.COMPLETE.responseCap(), NAMES);
      o.schema(Operation.COMPLETE.schema());
      long attempt = o.integer("attempt", 1, JsonValue.MAX_INTEGER);
      Disposition d = o.enumValue("disposition", Disposition.class);
      RunId runId;
      try {
        runId = RunId.of(o.string("runId"));
      } catch (ContractViolation e) {
        throw e.pointer().isEmpty() ? e.under("/runId") : e;
      }
      return new CompleteResponse(attempt, d, runId);
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
