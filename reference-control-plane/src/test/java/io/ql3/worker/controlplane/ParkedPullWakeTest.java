package io.ql3.worker.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.controlplane.ingress.ContractWire;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.OfferData;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.RunSubmission;
import io.ql3.worker.controlplane.state.WireCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Waking parked long polls, on the state machine itself (no sockets): who gets a newly queued run,
 * and that the work done is proportional to what arrived, not to parked pulls times the queue.
 */
class ParkedPullWakeTest {
  private final TestClock clock = new TestClock();
  private final ContractWire contract = new ContractWire();

  /**
   * Every pull answer the state machine builds (one per offer attempt on a pull, plus the answer).
   */
  private final AtomicInteger pullAnswersBuilt = new AtomicInteger();

  private ControlPlane cp;

  /** A parked pull and what it was answered with (null while parked). */
  private static final class Parked {
    final String workerId;
    volatile Reply answer;

    Parked(String workerId) {
      this.workerId = workerId;
    }

    List<String> runIds() throws Exception {
      return PullResponse.parse(answer.body()).offers().stream()
          .map(o -> o.runId().value())
          .toList();
    }
  }

  @BeforeEach
  void start() {
    WireCodec counting = new CountingCodec(contract, pullAnswersBuilt);
    cp =
        new ControlPlane(
            clock,
            Harness.SETTINGS,
            counting,
            new Auditor(clock, EventLog.quiet()),
            EventLog.quiet());
  }

  private Parked park(String workerId, String label, int maxRuns) throws Exception {
    String session = Bodies.newId();
    byte[] reg = Bodies.register(4, 4, 4, label);
    assertThat(cp.register(workerId, session, reg, contract.parseRegister(reg)).status())
        .isEqualTo(200);
    long generation =
        cp.workers().stream()
            .filter(w -> w.workerId().equals(workerId))
            .findFirst()
            .orElseThrow()
            .generation();
    Parked p = new Parked(workerId);
    byte[] pull = Bodies.pull(generation, maxRuns, Bodies.newId(), 60_000);
    ControlPlane.PullResult r =
        cp.pull(workerId, session, contract.parsePull(pull), reply -> p.answer = reply);
    assertThat(r).isInstanceOf(ControlPlane.Parked.class);
    return p;
  }

  private List<String> submit(
      int count, String workerId, Map<String, String> labels, long delayMs) {
    return cp.submit(
            new RunSubmission(
                count,
                "noop",
                "{}".getBytes(StandardCharsets.UTF_8),
                60_000,
                workerId,
                labels,
                null,
                null,
                delayMs))
        .runIds();
  }

  @Test
  void aNewRunGoesToTheFirstParkedPullThatCanTakeItAndOnlyNewRunsAreOffered() throws Exception {
    Parked a = park("edge-0001", "a", 2);
    Parked b = park("edge-0002", "b", 2);
    submit(500, "edge-0009", Map.of(), 0); // queued for a worker that is not here: wakes nobody
    assertThat(a.answer).isNull();
    assertThat(b.answer).isNull();
    List<String> forB = submit(1, null, Map.of("site", "b"), 0);
    assertThat(a.answer).isNull();
    assertThat(b.runIds()).containsExactlyElementsOf(forB);
    List<String> any = submit(3, null, Map.of(), 0);
    assertThat(a.runIds()).containsExactly(any.get(0), any.get(1)); // FIFO, up to maxRuns
    assertThat(cp.parkedCount()).isZero();
  }

  @Test
  void aDelayedRunWakesAParkedPullOnceDue() throws Exception {
    Parked a = park("edge-0001", null, 1);
    List<String> later = submit(1, null, Map.of(), 5_000);
    assertThat(a.answer).isNull();
    clock.advance(4_999);
    cp.sweep();
    assertThat(a.answer).isNull();
    clock.advance(1);
    cp.sweep();
    assertThat(a.runIds()).containsExactlyElementsOf(later);
  }

  @Test
  void aRunForOneWorkerCostsOnePullsWorkWhateverIsParkedOrQueued() throws Exception {
    List<Parked> parked = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      parked.add(park(String.format("edge-%04d", 100 + i), null, 1));
    }
    submit(1000, "edge-0099", Map.of(), 0); // a long queue nobody parked can take
    pullAnswersBuilt.set(0);
    List<String> one = submit(1, "edge-0250", Map.of(), 0);
    Parked target = parked.get(150);
    assertThat(target.runIds()).containsExactlyElementsOf(one);
    assertThat(parked.stream().filter(p -> p.answer != null)).hasSize(1);
    // The woken pull: its empty-answer size plus its answer. Before, every parked pull was offered
    // again
    // (and scanned the whole queue) on every submit.
    assertThat(pullAnswersBuilt.get()).isEqualTo(2);
  }

  @Test
  void aFencedSessionsParkedPullIsRefusedAndOthersStayParked() throws Exception {
    Parked a = park("edge-0001", null, 1);
    Parked b = park("edge-0002", null, 1);
    assertThat(cp.fenceWorker("edge-0001")).isTrue();
    assertThat(a.answer.status()).isEqualTo(409);
    assertThat(b.answer).isNull();
    assertThat(cp.parkedCount()).isEqualTo(1);
  }

  /** The contract's codec, counting the pull answers built. */
  private static final class CountingCodec implements WireCodec {
    private final ContractWire d;
    private final AtomicInteger pulls;

    CountingCodec(ContractWire d, AtomicInteger pulls) {
      this.d = d;
      this.pulls = pulls;
    }

    @Override
    public byte[] registerResponse(
        long generation,
        long heartbeatIntervalMs,
        long leaseTtlMs,
        Long replacedGeneration,
        String replacedSessionId,
        String replacedStatus) {
      return d.registerResponse(
          generation,
          heartbeatIntervalMs,
          leaseTtlMs,
          replacedGeneration,
          replacedSessionId,
          replacedStatus);
    }

    @Override
    public byte[] heartbeatResponse(
        List<String> cancelRuns,
        long generation,
        long heartbeatIntervalMs,
        long leaseTtlMs,
        io.ql3.worker.controlplane.state.SessionStatus status,
        long version,
        boolean workAvailable) {
      return d.heartbeatResponse(
          cancelRuns, generation, heartbeatIntervalMs, leaseTtlMs, status, version, workAvailable);
    }

    @Override
    public byte[] transitionResponse(
        long generation,
        long leaseTtlMs,
        io.ql3.worker.controlplane.state.SessionStatus status,
        long version) {
      return d.transitionResponse(generation, leaseTtlMs, status, version);
    }

    @Override
    public byte[] pullResponse(
        long generation, long nextPullAfterMs, List<OfferData> offers, String pullId) {
      pulls.incrementAndGet();
      return d.pullResponse(generation, nextPullAfterMs, offers, pullId);
    }

    @Override
    public int offerSize(OfferData offer) {
      return d.offerSize(offer);
    }

    @Override
    public byte[] completeResponse(long attempt, boolean duplicate, String runId) {
      return d.completeResponse(attempt, duplicate, runId);
    }

    @Override
    public byte[] errorBody(io.ql3.worker.contract.ErrorCode code, String message) {
      return d.errorBody(code, message);
    }

    @Override
    public void checkOffer(OfferData offer) {
      d.checkOffer(offer);
    }

    @Override
    public boolean validWorkerId(String workerId) {
      return d.validWorkerId(workerId);
    }

    @Override
    public byte[] canonicalize(byte[] json) {
      return d.canonicalize(json);
    }

    @Override
    public String digest(byte[] canonical) {
      return d.digest(canonical);
    }
  }
}
