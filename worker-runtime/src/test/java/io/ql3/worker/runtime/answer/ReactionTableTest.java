package io.ql3.worker.runtime.answer;

import static io.ql3.worker.contract.AnswerKind.CLIENT_BUG;
import static io.ql3.worker.contract.AnswerKind.CREDENTIAL_REJECTED;
import static io.ql3.worker.contract.AnswerKind.DRIFT;
import static io.ql3.worker.contract.AnswerKind.FENCED;
import static io.ql3.worker.contract.AnswerKind.LOCAL_CREDENTIAL_ERROR;
import static io.ql3.worker.contract.AnswerKind.NOT_SENT;
import static io.ql3.worker.contract.AnswerKind.NOT_SENT_ON_HTTP1;
import static io.ql3.worker.contract.AnswerKind.OUTCOME_UNKNOWN;
import static io.ql3.worker.contract.AnswerKind.RUN_NOT_LEASED;
import static io.ql3.worker.contract.AnswerKind.SUCCESS;
import static io.ql3.worker.contract.AnswerKind.TRANSIENT;
import static io.ql3.worker.contract.Operation.COMPLETE;
import static io.ql3.worker.contract.Operation.HEARTBEAT;
import static io.ql3.worker.contract.Operation.PULL;
import static io.ql3.worker.contract.Operation.REGISTER;
import static io.ql3.worker.contract.Operation.TRANSITION;
import static io.ql3.worker.runtime.answer.Reaction.APPLY;
import static io.ql3.worker.runtime.answer.Reaction.FENCE;
import static io.ql3.worker.runtime.answer.Reaction.REGISTER_AGAIN;
import static io.ql3.worker.runtime.answer.Reaction.REPLAN_FOR_HTTP1;
import static io.ql3.worker.runtime.answer.Reaction.RESEND;
import static io.ql3.worker.runtime.answer.Reaction.RESEND_AND_FAIL_CLOSED;
import static io.ql3.worker.runtime.answer.Reaction.SETTLE_SUPERSEDED;
import static io.ql3.worker.runtime.answer.Reaction.SETTLE_UNDELIVERABLE;
import static io.ql3.worker.runtime.answer.Reaction.SETTLE_UNDELIVERABLE_STOP_PULLING;
import static io.ql3.worker.runtime.answer.Reaction.STOP_PULLING;
import static io.ql3.worker.runtime.answer.Reaction.SUSPEND;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Operation;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every row of the section 6 reaction table, written out: (operation, answer kind) → reaction. */
class ReactionTableTest {
  private static final Object[][] ROWS = {
    // operation   kind                    reaction
    {REGISTER, SUCCESS, APPLY},
    {REGISTER, CLIENT_BUG, REGISTER_AGAIN},
    {REGISTER, CREDENTIAL_REJECTED, REGISTER_AGAIN},
    {REGISTER, FENCED, REGISTER_AGAIN},
    {REGISTER, RUN_NOT_LEASED, REGISTER_AGAIN},
    {REGISTER, TRANSIENT, RESEND},
    {REGISTER, OUTCOME_UNKNOWN, RESEND},
    {REGISTER, NOT_SENT, RESEND},
    {REGISTER, NOT_SENT_ON_HTTP1, RESEND},
    {REGISTER, DRIFT, REGISTER_AGAIN},
    {REGISTER, LOCAL_CREDENTIAL_ERROR, REGISTER_AGAIN},
    {HEARTBEAT, SUCCESS, APPLY},
    {HEARTBEAT, CLIENT_BUG, FENCE},
    {HEARTBEAT, CREDENTIAL_REJECTED, SUSPEND},
    {HEARTBEAT, FENCED, FENCE},
    {HEARTBEAT, RUN_NOT_LEASED, FENCE},
    {HEARTBEAT, TRANSIENT, RESEND},
    {HEARTBEAT, OUTCOME_UNKNOWN, RESEND},
    {HEARTBEAT, NOT_SENT, RESEND},
    {HEARTBEAT, NOT_SENT_ON_HTTP1, RESEND},
    {HEARTBEAT, DRIFT, FENCE},
    {HEARTBEAT, LOCAL_CREDENTIAL_ERROR, SUSPEND},
    {TRANSITION, SUCCESS, APPLY},
    {TRANSITION, CLIENT_BUG, FENCE},
    {TRANSITION, CREDENTIAL_REJECTED, SUSPEND},
    {TRANSITION, FENCED, FENCE},
    {TRANSITION, RUN_NOT_LEASED, FENCE},
    {TRANSITION, TRANSIENT, RESEND},
    {TRANSITION, OUTCOME_UNKNOWN, RESEND},
    {TRANSITION, NOT_SENT, RESEND},
    {TRANSITION, NOT_SENT_ON_HTTP1, RESEND},
    {TRANSITION, DRIFT, FENCE},
    {TRANSITION, LOCAL_CREDENTIAL_ERROR, SUSPEND},
    {PULL, SUCCESS, APPLY},
    {PULL, CLIENT_BUG, STOP_PULLING},
    {PULL, CREDENTIAL_REJECTED, SUSPEND},
    {PULL, FENCED, FENCE},
    {PULL, RUN_NOT_LEASED, FENCE},
    {PULL, TRANSIENT, RESEND},
    {PULL, OUTCOME_UNKNOWN, RESEND},
    {PULL, NOT_SENT, RESEND},
    {PULL, NOT_SENT_ON_HTTP1, REPLAN_FOR_HTTP1},
    {PULL, DRIFT, FENCE},
    {PULL, LOCAL_CREDENTIAL_ERROR, SUSPEND},
    {COMPLETE, SUCCESS, APPLY},
    {COMPLETE, CLIENT_BUG, SETTLE_UNDELIVERABLE_STOP_PULLING},
    {COMPLETE, CREDENTIAL_REJECTED, SUSPEND},
    {COMPLETE, FENCED, SETTLE_UNDELIVERABLE},
    {COMPLETE, RUN_NOT_LEASED, SETTLE_SUPERSEDED},
    {COMPLETE, TRANSIENT, RESEND},
    {COMPLETE, OUTCOME_UNKNOWN, RESEND},
    {COMPLETE, NOT_SENT, RESEND},
    {COMPLETE, NOT_SENT_ON_HTTP1, RESEND},
    {COMPLETE, DRIFT, RESEND_AND_FAIL_CLOSED},
    {COMPLETE, LOCAL_CREDENTIAL_ERROR, SUSPEND},
  };

  @Test
  void everyOperationAndAnswerKindHasItsWrittenOutReaction() {
    Map<Operation, Map<AnswerKind, Reaction>> expected = new EnumMap<>(Operation.class);
    for (Object[] row : ROWS) {
      Reaction previous =
          expected
              .computeIfAbsent((Operation) row[0], k -> new EnumMap<>(AnswerKind.class))
              .put((AnswerKind) row[1], (Reaction) row[2]);
      assertThat(previous).as("row listed twice: %s %s", row[0], row[1]).isNull();
    }
    for (Operation op : Operation.values()) {
      for (AnswerKind kind : AnswerKind.values()) {
        assertThat(expected.get(op)).as("a row for %s", op).containsKey(kind);
        assertThat(Reactions.of(op, kind))
            .as("%s %s", op, kind)
            .isEqualTo(expected.get(op).get(kind));
      }
    }
    assertThat(ROWS.length).isEqualTo(Operation.values().length * AnswerKind.values().length);
  }

  @Test
  void retryAfterIsCappedAtTheHeartbeatIntervalForSessionOperationsAndAtOneMinuteForExecution() {
    Duration day = Duration.ofSeconds(86_400);
    assertThat(Reactions.cappedRetryAfter(HEARTBEAT, day, 10_000))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(Reactions.cappedRetryAfter(TRANSITION, day, 10_000))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(Reactions.cappedRetryAfter(REGISTER, day, 0)).isEqualTo(Duration.ofSeconds(5));
    assertThat(Reactions.cappedRetryAfter(PULL, day, 10_000)).isEqualTo(Duration.ofSeconds(60));
    assertThat(Reactions.cappedRetryAfter(COMPLETE, day, 10_000)).isEqualTo(Duration.ofSeconds(60));
    assertThat(Reactions.cappedRetryAfter(HEARTBEAT, Duration.ofSeconds(3), 10_000))
        .isEqualTo(Duration.ofSeconds(3));
  }
}
