package io.ql3.worker.contract;

/**
 * Complete request (path {@code …/runs/{runId}/complete}). {@code failure} is null exactly when
 * {@code outcome} is succeeded.
 *
 * @param failure null for succeeded, present otherwise
 */
public record CompleteRequest(
    long attempt, Failure failure, long generation, Outcome outcome, RunResult result) {
  static final String[] NAMES = {"attempt", "failure", "generation", "outcome", "result", "schema"};

  public CompleteRequest {
    Check.range(attempt, 1, JsonValue.MAX_INTEGER, "/attempt");
    Check.integer(generation, "/generation");
    Check.present(outcome, "/outcome");
    Check.present(result, "/result");
    if (outcome == Outcome.SUCCEEDED && failure != null) {
      throw Check.outOfRange("/failure", "failure must be null when the outcome is succeeded");
    }
    if (outcome != Outcome.SUCCEEDED && failure == null) {
      throw new InvalidWireValueException(
          ViolationReason.NULL_NOT_ALLOWED,
          "/failure",
          "failure must be present when the outcome is " + outcome.wire());
    }
  }

  /**
   * The completion of an offer rejected by a one-offer rule: failed, permanent, offer_rejected,
   * nothing ran.
   */
  public static CompleteRequest offerRejected(long generation, Offer offer) {
    OfferRejection r =
        offer.rejection().orElseThrow(() -> new IllegalArgumentException("offer is not rejected"));
    return new CompleteRequest(
        offer.attempt(), r.failure(), generation, Outcome.FAILED, RunResult.NOT_RUN);
  }

  public Operation operation() {
    return Operation.COMPLETE;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(256 + result.outputTail().length());
    w.ascii("{\"attempt\":").number(attempt).ascii(",\"failure\":");
    if (failure == null) {
      w.nul();
    } else {
      failure.write(w);
    }
    w.ascii(",\"generation\":")
        .number(generation)
        .ascii(",\"outcome\":")
        .string(outcome.wire())
        .ascii(",\"result\":");
    result.write(w);
    w.ascii(",\"schema\":\"qinglong/worker-execution-complete@v1\"}");
    return w.toByteArray();
  }

  /** Server-side strict parse, canonical form included. */
  public static CompleteRequest parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.COMPLETE.requestCap(), NAMES);
      o.schema(Operation.COMPLETE.schema());
      long attempt = o.integer("attempt");
      Obj fo = o.nullableObject("failure", Failure.NAMES);
      Failure failure = fo == null ? null : Failure.read(fo);
      long g = o.integer("generation");
      Outcome outcome = o.enumValue("outcome", Outcome.class);
      RunResult result = RunResult.read(o.object("result", RunResult.NAMES));
      CompleteRequest r = new CompleteRequest(attempt, failure, g, outcome, result);
      Obj.requireCanonical(body, r.toCanonicalBytes());
      return r;
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
