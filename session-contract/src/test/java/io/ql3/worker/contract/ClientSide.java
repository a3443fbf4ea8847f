package io.ql3.worker.contract;

import java.util.Optional;
import java.util.TreeSet;

/**
 * What the client does with an answer under a vector's {@code context}: parse, then drift-check.
 */
final class ClientSide {
  private ClientSide() {}

  /** Either a violation (parse refused), or a parsed answer with an optional drift. */
  record Verdict(ContractViolation violation, Optional<Drift> drift, PullResponse pull) {}

  static Verdict judge(Operation op, Vectors.Entry ctx, byte[] body) {
    int status = ctx.num("httpStatus").intValue();
    try {
      if (status != 200) {
        ErrorBody.parse(status, op, body);
        return new Verdict(null, Optional.empty(), null);
      }
      switch (op) {
        case REGISTER:
          {
            RegisterResponse r = RegisterResponse.parse(body);
            return new Verdict(null, DriftCheck.register(r, ctx.num("previousGeneration")), null);
          }
        case HEARTBEAT:
          {
            HeartbeatResponse r = HeartbeatResponse.parse(body);
            return new Verdict(
                null,
                DriftCheck.heartbeat(
                    r, ctx.num("expectedGeneration"), ctx.num("expectedVersion"), status(ctx)),
                null);
          }
        case TRANSITION:
          {
            TransitionResponse r = TransitionResponse.parse(body);
            return new Verdict(
                null,
                DriftCheck.transition(
                    r,
                    ctx.num("expectedGeneration"),
                    ctx.num("expectedVersion"),
                    status(ctx),
                    ctx.num("lastHeartbeatIntervalMs")),
                null);
          }
        case PULL:
          {
            OfferPolicy policy =
                new OfferPolicy(
                    new TreeSet<>(ctx.strings("advertisedExecutors")),
                    ctx.num("maxSpecBytes").intValue());
            PullResponse r = PullResponse.parse(body, policy);
            PullId pullId = ctx.str("pullId") == null ? null : new PullId(ctx.str("pullId"));
            Integer maxRuns = ctx.num("maxRuns") == null ? null : ctx.num("maxRuns").intValue();
            return new Verdict(
                null, DriftCheck.pull(r, ctx.num("expectedGeneration"), pullId, maxRuns), r);
          }
        case COMPLETE:
          {
            CompleteResponse r = CompleteResponse.parse(body);
            RunId runId = ctx.str("runId") == null ? null : new RunId(ctx.str("runId"));
            return new Verdict(null, DriftCheck.complete(r, runId, ctx.num("attempt")), null);
          }
        default:
          throw new AssertionError(op);
      }
    } catch (ContractViolation v) {
      return new Verdict(v, Optional.empty(), null);
    }
  }

  private static SessionStatus status(Vectors.Entry ctx) {
    return ctx.str("requestedStatus") == null
        ? null
        : SessionStatus.fromWire(ctx.str("requestedStatus"));
  }
}
