package io.ql3.worker.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** One pending session request: same record every try, the lease base, "may have been applied". */
class PendingRequestTest {
  static final SessionId SESSION = new SessionId("01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f");
  static final HeartbeatRequest HB =
      new HeartbeatRequest(new Capacity(1, 2), 7, new RunCounts(0, 0), SessionStatus.ACTIVE, 3);

  /** Records every heartbeat record sent; each answer is completed by the test. */
  static final class Client implements SessionCoordinator.IngressClient {
    final List<HeartbeatRequest> sent = new ArrayList<>();
    CompletableFuture<Answer<HeartbeatResponse>> last;

    @Override
    public CompletableFuture<Answer<RegisterResponse>> register(SessionId s, RegisterRequest r) {
      throw new AssertionError("not a heartbeat");
    }

    @Override
    public CompletableFuture<Answer<HeartbeatResponse>> heartbeat(SessionId s, HeartbeatRequest r) {
      sent.add(r);
      last = new CompletableFuture<>();
      return last;
    }

    @Override
    public CompletableFuture<Answer<TransitionResponse>> transition(
        SessionId s, TransitionRequest r) {
      throw new AssertionError("not a heartbeat");
    }
  }

  @Test
  void theLeaseRunsFromTheEarliestTryThatMayHaveReachedTheServer() {
    Client client = new Client();
    int[] wakes = {0};
    PendingRequest p = new PendingRequest(Operation.HEARTBEAT, HB, SESSION);

    p.send(client, 100, () -> wakes[0]++);
    assertThat(p.onTheWire()).isTrue();
    assertThat(p.takeAnswer()).as("not answered yet").isNull();
    client.last.complete(Answer.refused(AnswerKind.NOT_SENT, "refused unsent"));
    assertThat(wakes[0]).isEqualTo(1);
    assertThat(p.takeAnswer().kind()).isEqualTo(AnswerKind.NOT_SENT);
    assertThat(p.onTheWire()).isFalse();
    assertThat(p.leaseBase()).as("a try refused unsent does not count").isEqualTo(-1);
    assertThat(p.mayHaveBeenApplied()).isFalse();

    p.send(client, 200, () -> wakes[0]++);
    client.last.complete(Answer.refused(AnswerKind.OUTCOME_UNKNOWN, "lost"));
    p.takeAnswer();
    assertThat(p.leaseBase()).isEqualTo(200);
    assertThat(p.mayHaveBeenApplied()).isTrue();

    p.send(client, 300, () -> wakes[0]++);
    client.last.complete(Answer.refused(AnswerKind.TRANSIENT, "503"));
    p.takeAnswer();
    assertThat(p.leaseBase()).as("still the earliest try the server may have seen").isEqualTo(200);
    assertThat(p.mayHaveBeenApplied()).as("sticks until the request is settled").isTrue();
    assertThat(client.sent).hasSize(3).allSatisfy(r -> assertThat(r).isSameAs(HB));
  }

  @Test
  void aFailedFutureIsAnAnswerNotAThrow() {
    Client client = new Client();
    PendingRequest p = new PendingRequest(Operation.HEARTBEAT, HB, SESSION);
    p.send(client, 100, () -> {});
    client.last.completeExceptionally(new OutOfMemoryError("while reading the answer"));
    assertThat(p.takeAnswer().kind()).isEqualTo(AnswerKind.OUTCOME_UNKNOWN);
  }

  @Test
  void onlySessionOperations() {
    assertThatThrownBy(() -> new PendingRequest(Operation.PULL, HB, SESSION))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
