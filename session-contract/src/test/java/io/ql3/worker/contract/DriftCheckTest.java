package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DriftCheckTest {
  private static final SessionId OLD = new SessionId("01938a2c-1b77-7a04-a1f3-6e5d4c3b2a19");

  private static Optional<DriftReason> reason(Optional<Drift> d) {
    return d.map(Drift::reason);
  }

  private static RegisterResponse reg(long g, long h, long l, Replaced r, SessionStatus s, long v) {
    return new RegisterResponse(g, h, l, r, s, v);
  }

  @Test
  void cadenceBounds() {
    assertThat(DriftCheck.cadence(5000, 15000)).isEmpty();
    assertThat(DriftCheck.cadence(300000, 900000)).isEmpty();
    assertThat(reason(DriftCheck.cadence(4999, 15000))).contains(DriftReason.BOUNDS);
    assertThat(reason(DriftCheck.cadence(300001, 900000))).contains(DriftReason.BOUNDS);
    assertThat(reason(DriftCheck.cadence(5000, 14999))).contains(DriftReason.BOUNDS);
    assertThat(reason(DriftCheck.cadence(5000, 900001))).contains(DriftReason.BOUNDS);
    assertThat(reason(DriftCheck.cadence(10000, 29999))).contains(DriftReason.BOUNDS);
    assertThat(DriftCheck.cadence(10000, 30000)).isEmpty();
  }

  @Test
  void registerRules() {
    assertThat(DriftCheck.register(reg(7, 10000, 30000, null, SessionStatus.ACTIVE, 1), null))
        .isEmpty();
    assertThat(DriftCheck.register(reg(7, 10000, 30000, null, SessionStatus.ACTIVE, 1), 6L))
        .isEmpty();
    assertThat(reason(DriftCheck.register(reg(7, 10000, 30000, null, SessionStatus.ACTIVE, 1), 7L)))
        .contains(DriftReason.GENERATION_DRIFT);
    assertThat(
            reason(DriftCheck.register(reg(7, 10000, 30000, null, SessionStatus.ACTIVE, 2), null)))
        .contains(DriftReason.VERSION_DRIFT);
    assertThat(
            reason(
                DriftCheck.register(reg(7, 10000, 30000, null, SessionStatus.DRAINING, 1), null)))
        .contains(DriftReason.STATUS_DRIFT);
    Replaced sameGen = new Replaced(7, OLD, ReplacedStatus.EXPIRED);
    assertThat(
            reason(
                DriftCheck.register(reg(7, 10000, 30000, sameGen, SessionStatus.ACTIVE, 1), null)))
        .contains(DriftReason.GENERATION_DRIFT);
    Replaced older = new Replaced(6, OLD, ReplacedStatus.ACTIVE);
    assertThat(DriftCheck.register(reg(7, 10000, 30000, older, SessionStatus.ACTIVE, 1), 6L))
        .isEmpty();
    assertThat(reason(DriftCheck.register(reg(7, 4000, 30000, older, SessionStatus.ACTIVE, 1), 6L)))
        .contains(DriftReason.BOUNDS);
  }

  @Test
  void heartbeatAgainstTheRequestSent() {
    HeartbeatRequest sent =
        new HeartbeatRequest(new Capacity(3, 4), 7, new RunCounts(1, 0), SessionStatus.ACTIVE, 1);
    HeartbeatResponse ok =
        new HeartbeatResponse(List.of(), 7, 10000, 30000, SessionStatus.ACTIVE, 2, false);
    assertThat(DriftCheck.heartbeat(ok, sent)).isEmpty();
    assertThat(
            reason(
                DriftCheck.heartbeat(
                    new HeartbeatResponse(
                        List.of(), 8, 10000, 30000, SessionStatus.ACTIVE, 2, false),
                    sent)))
        .contains(DriftReason.GENERATION_DRIFT);
    assertThat(
            reason(
                DriftCheck.heartbeat(
                    new HeartbeatResponse(
                        List.of(), 7, 10000, 30000, SessionStatus.ACTIVE, 1, false),
                    sent)))
        .contains(DriftReason.VERSION_DRIFT);
    assertThat(
            reason(
                DriftCheck.heartbeat(
                    new HeartbeatResponse(
                        List.of(), 7, 10000, 30000, SessionStatus.DRAINING, 2, false),
                    sent)))
        .contains(DriftReason.STATUS_DRIFT);
    assertThat(
            reason(
                DriftCheck.heartbeat(
                    new HeartbeatResponse(
                        List.of(), 7, 10000, 20000, SessionStatus.ACTIVE, 2, false),
                    sent)))
        .contains(DriftReason.BOUNDS);
  }

  @Test
  void transitionLeases() {
    TransitionRequest drain =
        new TransitionRequest(
            new Capacity(0, 4), SessionStatus.ACTIVE, 7, SessionStatus.DRAINING, 2);
    assertThat(
            DriftCheck.transition(
                new TransitionResponse(7, 30000, SessionStatus.DRAINING, 3), drain, 10000L))
        .isEmpty();
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 29999, SessionStatus.DRAINING, 3), drain, 10000L)))
        .contains(DriftReason.BOUNDS);
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 0, SessionStatus.DRAINING, 3), drain, null)))
        .contains(DriftReason.BOUNDS);
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 900001, SessionStatus.DRAINING, 3), drain, null)))
        .contains(DriftReason.BOUNDS);
    TransitionRequest off =
        new TransitionRequest(
            new Capacity(0, 4), SessionStatus.DRAINING, 7, SessionStatus.OFFLINE, 4);
    assertThat(
            DriftCheck.transition(
                new TransitionResponse(7, 0, SessionStatus.OFFLINE, 5), off, 10000L))
        .isEmpty();
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 30000, SessionStatus.OFFLINE, 5), off, 10000L)))
        .contains(DriftReason.BOUNDS);
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 0, SessionStatus.DRAINING, 5), off, 10000L)))
        .contains(DriftReason.STATUS_DRIFT);
    assertThat(
            reason(
                DriftCheck.transition(
                    new TransitionResponse(7, 0, SessionStatus.OFFLINE, 4), off, 10000L)))
        .contains(DriftReason.VERSION_DRIFT);
  }

  @Test
  void pullWholeAnswerRules() {
    PullId id = new PullId("01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f");
    PullRequest sent = new PullRequest(7, 2, id, 20000);
    Offer a = Offer.of(1, "k1", new RunId("run-a"), NoopSpec.INSTANCE, 1000);
    Offer b = Offer.of(1, "k2", new RunId("run-b"), new SleepSpec(5), 1000);
    assertThat(DriftCheck.pull(new PullResponse(7, 0, List.of(a, b), id), sent)).isEmpty();
    assertThat(reason(DriftCheck.pull(new PullResponse(7, 0, List.of(a, b, a), id), sent)))
        .contains(DriftReason.TOO_MANY_OFFERS);
    assertThat(reason(DriftCheck.pull(new PullResponse(7, 0, List.of(a, a), id), sent)))
        .contains(DriftReason.DUPLICATE_RUN_ID);
    assertThat(reason(DriftCheck.pull(new PullResponse(8, 0, List.of(), id), sent)))
        .contains(DriftReason.GENERATION_DRIFT);
    assertThat(
            reason(
                DriftCheck.pull(
                    new PullResponse(
                        7, 0, List.of(), new PullId("01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e40")),
                    sent)))
        .contains(DriftReason.PULLID_DRIFT);
  }

  @Test
  void completeRunRules() {
    CompleteResponse r = new CompleteResponse(2, Disposition.DUPLICATE, new RunId("run-1"));
    assertThat(DriftCheck.complete(r, new RunId("run-1"), 2L)).isEmpty();
    assertThat(reason(DriftCheck.complete(r, new RunId("run-2"), 2L)))
        .contains(DriftReason.RUN_DRIFT);
    assertThat(reason(DriftCheck.complete(r, new RunId("run-1"), 1L)))
        .contains(DriftReason.RUN_DRIFT);
  }

  @Test
  void aViolationOfA200BodyIsDrift() {
    assertThat(Drift.of(new ContractViolation(ViolationReason.OVER_CAP, "", "x")).reason())
        .isEqualTo(DriftReason.OVER_CAP);
    assertThat(Drift.of(new ContractViolation(ViolationReason.WRONG_TYPE, "/a", "x")).reason())
        .isEqualTo(DriftReason.CONTRACT_VIOLATION);
  }
}
