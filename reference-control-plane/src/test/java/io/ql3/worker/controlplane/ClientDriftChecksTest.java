package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.completePath;
import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import org.junit.jupiter.api.Test;

/**
 * The server's answers through a whole session lifecycle pass the contract module's client-side
 * checks: strict response parsing (caps, closed objects), drift rules and the one-offer rules.
 */
class ClientDriftChecksTest {
  @Test
  void everyAnswerOfALifecyclePassesTheClientChecks() throws Exception {
    try (Harness h = new Harness()) {
      WorkerClient c = h.client(W1);
      String s = Bodies.newId();
      RegisterResponse reg =
          RegisterResponse.parse(c.post(path(W1, s, "register"), Bodies.register(4, 4)).body());
      assertThat(DriftCheck.register(reg, null)).isEmpty();
      long g = reg.generation();

      h.submit(2, "sleep", "{\"ms\":10}", null);
      h.submit(
          1, "process", "{\"argv\":[\"echo\",\"hi\"],\"cwd\":null,\"env\":{\"A\":\"b\"}}", null);
      PullRequest pull = new PullRequest(g, 4, new PullId(Bodies.newId()), 0);
      PullResponse p =
          PullResponse.parse(
              c.post(path(W1, s, "pull"), pull.toCanonicalBytes()).body(), OfferPolicy.CONTRACT);
      assertThat(DriftCheck.pull(p, pull)).isEmpty();
      assertThat(p.offers()).hasSize(3);
      assertThat(p.rejectedOffers()).isEmpty();

      h.clock.advance(10_000);
      HeartbeatRequest hb =
          new HeartbeatRequest(new Capacity(1, 4), g, new RunCounts(3, 0), SessionStatus.ACTIVE, 1);
      HeartbeatResponse hr =
          HeartbeatResponse.parse(c.post(path(W1, s, "heartbeat"), hb.toCanonicalBytes()).body());
      assertThat(DriftCheck.heartbeat(hr, hb)).isEmpty();

      RunId first = p.offers().get(0).runId();
      CompleteResponse cr =
          CompleteResponse.parse(
              c.post(completePath(W1, s, first.value()), Bodies.succeeded(1, g)).body());
      assertThat(DriftCheck.complete(cr, first, 1L)).isEmpty();

      TransitionRequest drain =
          new TransitionRequest(
              new Capacity(0, 4), SessionStatus.ACTIVE, g, SessionStatus.DRAINING, 2);
      TransitionResponse tr =
          TransitionResponse.parse(
              c.post(path(W1, s, "transition"), drain.toCanonicalBytes()).body());
      assertThat(DriftCheck.transition(tr, drain, hr.heartbeatIntervalMs())).isEmpty();

      TransitionRequest off =
          new TransitionRequest(
              new Capacity(0, 4), SessionStatus.DRAINING, g, SessionStatus.OFFLINE, 3);
      TransitionResponse or =
          TransitionResponse.parse(
              c.post(path(W1, s, "transition"), off.toCanonicalBytes()).body());
      assertThat(DriftCheck.transition(or, off, hr.heartbeatIntervalMs())).isEmpty();

      // A later session's register reports the replaced one and still passes the register drift
      // rule.
      RegisterResponse next =
          RegisterResponse.parse(
              c.post(path(W1, Bodies.newId(), "register"), Bodies.register(4, 4)).body());
      assertThat(DriftCheck.register(next, g)).isEmpty();
      assertThat(next.replaced().status().wire()).isEqualTo("offline");
      assertThat(h.server.auditor().violations()).isEmpty();
    }
  }
}
