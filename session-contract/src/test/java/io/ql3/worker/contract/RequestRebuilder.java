package io.ql3.worker.contract;

import java.util.Map;

/**
 * Client side of the request vectors: reads the logical content of a vector body, then builds the
 * same request again through the public constructors and builders, and serializes it.
 */
final class RequestRebuilder {
  private RequestRebuilder() {}

  static byte[] rebuild(Operation op, byte[] body) throws ContractViolation {
    switch (op) {
      case REGISTER:
        {
          RegisterRequest r = RegisterRequest.parse(body);
          Capability c = r.capability();
          CapabilityBuilder b =
              new CapabilityBuilder()
                  .agent(c.agent().version(), c.agent().revision())
                  .architecture(c.architecture())
                  .os(c.os())
                  .runtime(c.runtime().name(), c.runtime().version())
                  .limits(
                      c.limits().maxConcurrentRuns(),
                      c.limits().maxSpecBytes(),
                      c.limits().pullPage())
                  .profile(c.profile());
          // Reverse order on purpose: the builder sorts.
          for (int i = c.executors().size() - 1; i >= 0; i--) {
            b.executor(c.executors().get(i).name(), c.executors().get(i).version());
          }
          for (Map.Entry<String, String> e : c.labels().entrySet()) {
            b.label(e.getKey(), e.getValue());
          }
          return RegisterRequest.of(b.build(), r.capacity().availableSlots()).toCanonicalBytes();
        }
      case HEARTBEAT:
        {
          HeartbeatRequest r = HeartbeatRequest.parse(body);
          return new HeartbeatRequest(
                  new Capacity(r.capacity().availableSlots(), r.capacity().maxConcurrentRuns()),
                  r.generation(),
                  new RunCounts(r.runs().active(), r.runs().pendingCompletions()),
                  r.status(),
                  r.version())
              .toCanonicalBytes();
        }
      case TRANSITION:
        {
          TransitionRequest r = TransitionRequest.parse(body);
          return new TransitionRequest(
                  new Capacity(0, r.capacity().maxConcurrentRuns()),
                  r.from(),
                  r.generation(),
                  r.to(),
                  r.version())
              .toCanonicalBytes();
        }
      case PULL:
        {
          PullRequest r = PullRequest.parse(body);
          return new PullRequest(
                  r.generation(), r.maxRuns(), new PullId(r.pullId().value()), r.waitMs())
              .toCanonicalBytes();
        }
      case COMPLETE:
        {
          CompleteRequest r = CompleteRequest.parse(body);
          Failure f =
              r.failure() == null
                  ? null
                  : new Failure(r.failure().category(), r.failure().code(), r.failure().message());
          RunResult rr = r.result();
          return new CompleteRequest(
                  r.attempt(),
                  f,
                  r.generation(),
                  r.outcome(),
                  new RunResult(
                      rr.durationMs(),
                      rr.exitCode(),
                      rr.outputBytes(),
                      OutputTail.fit(rr.outputTail())))
              .toCanonicalBytes();
        }
      default:
        throw new AssertionError(op);
    }
  }
}
