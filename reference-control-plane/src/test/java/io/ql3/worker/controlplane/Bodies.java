package io.ql3.worker.controlplane;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.RunResult;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.Uuid7Generator;
import java.util.Random;

/** Canonical request bodies built with the contract module, and paths. */
final class Bodies {
  private static final Uuid7Generator IDS =
      new Uuid7Generator(System::currentTimeMillis, new Random());

  private Bodies() {}

  static String newId() {
    return IDS.next();
  }

  static String path(String worker, String session, String op) {
    return "/ql3w/v1/workers/" + worker + "/sessions/" + session + "/" + op;
  }

  static String completePath(String worker, String session, String runId) {
    return "/ql3w/v1/workers/" + worker + "/sessions/" + session + "/runs/" + runId + "/complete";
  }

  static Capability capability(int maxConcurrentRuns, int pullPage, String label) throws Exception {
    CapabilityBuilder b =
        new CapabilityBuilder()
            .agent("0.1.0", "0123456789abcdef0123456789abcdef01234567")
            .architecture("amd64")
            .executor("noop", "1")
            .executor("process", "1")
            .executor("sleep", "1")
            .limits(maxConcurrentRuns, 65536, pullPage)
            .profile(Profile.NODE);
    if (label != null) {
      b.label("site", label);
    }
    return b.build();
  }

  static byte[] register(int slots, int max) throws Exception {
    return register(slots, max, Math.min(max, 64), null);
  }

  static byte[] register(int slots, int max, int pullPage, String label) throws Exception {
    return RegisterRequest.of(capability(max, pullPage, label), slots).toCanonicalBytes();
  }

  static byte[] heartbeat(long gen, long version, int slots, int max) {
    return new HeartbeatRequest(
            new Capacity(slots, max),
            gen,
            new RunCounts(max - slots, 0),
            SessionStatus.ACTIVE,
            version)
        .toCanonicalBytes();
  }

  static byte[] drainingHeartbeat(long gen, long version, int max) {
    return new HeartbeatRequest(
            new Capacity(0, max), gen, new RunCounts(0, 0), SessionStatus.DRAINING, version)
        .toCanonicalBytes();
  }

  static byte[] transition(long gen, long version, SessionStatus from, SessionStatus to, int max) {
    return new TransitionRequest(new Capacity(0, max), from, gen, to, version).toCanonicalBytes();
  }

  static byte[] pull(long gen, int maxRuns, String pullId, int waitMs) {
    return new PullRequest(gen, maxRuns, new PullId(pullId), waitMs).toCanonicalBytes();
  }

  static byte[] succeeded(long attempt, long gen) {
    return new CompleteRequest(
            attempt, null, gen, Outcome.SUCCEEDED, new RunResult(12, 0, 3, "ok\n"))
        .toCanonicalBytes();
  }

  static byte[] failed(long attempt, long gen, String code) {
    return new CompleteRequest(
            attempt,
            new Failure(FailureCategory.PERMANENT, code, "failed"),
            gen,
            Outcome.FAILED,
            new RunResult(5, 1, 0, ""))
        .toCanonicalBytes();
  }

  static byte[] uncertain(long attempt, long gen) {
    return new CompleteRequest(
            attempt,
            new Failure(FailureCategory.TRANSIENT, "worker_restarted", "crash"),
            gen,
            Outcome.UNCERTAIN,
            RunResult.NOT_RUN)
        .toCanonicalBytes();
  }
}
