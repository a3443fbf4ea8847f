package io.ql3.worker.runtime.answer;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Operation;
import java.time.Duration;

/**
 * Contract section 6 "what the client does", as one table: (operation, answer kind) → reaction.
 * Every caller (session coordinator, pull loop, completion outbox) asks here; no other switch on an
 * answer kind decides a reaction. docs/runtime.md shows the table.
 */
public final class Reactions {
  /** The cap of {@code retry-after} on pull and complete (Clarifications). */
  public static final Duration PULL_AND_COMPLETE_RETRY_AFTER_CAP = Duration.ofSeconds(60);

  /**
   * The cap on session operations before any heartbeat interval is known: the contract's least
   * interval.
   */
  public static final Duration LEAST_HEARTBEAT_INTERVAL = Duration.ofMillis(5_000);

  private Reactions() {}

  public static Reaction of(Operation op, AnswerKind kind) {
    return switch (op) {
      case REGISTER ->
          switch (kind) {
            case SUCCESS -> Reaction.APPLY;
            case TRANSIENT, OUTCOME_UNKNOWN, NOT_SENT, NOT_SENT_ON_HTTP1 -> Reaction.RESEND;
            case CREDENTIAL_REJECTED,
                LOCAL_CREDENTIAL_ERROR,
                FENCED,
                CLIENT_BUG,
                RUN_NOT_LEASED,
                DRIFT ->
                Reaction.REGISTER_AGAIN;
          };
      case HEARTBEAT, TRANSITION ->
          switch (kind) {
            case SUCCESS -> Reaction.APPLY;
            case TRANSIENT, OUTCOME_UNKNOWN, NOT_SENT, NOT_SENT_ON_HTTP1 -> Reaction.RESEND;
            case CREDENTIAL_REJECTED, LOCAL_CREDENTIAL_ERROR -> Reaction.SUSPEND;
            case FENCED, CLIENT_BUG, RUN_NOT_LEASED, DRIFT -> Reaction.FENCE;
          };
      case PULL ->
          switch (kind) {
            case SUCCESS -> Reaction.APPLY;
            case TRANSIENT, OUTCOME_UNKNOWN, NOT_SENT -> Reaction.RESEND;
            case NOT_SENT_ON_HTTP1 -> Reaction.REPLAN_FOR_HTTP1;
            case CREDENTIAL_REJECTED, LOCAL_CREDENTIAL_ERROR -> Reaction.SUSPEND;
            case CLIENT_BUG -> Reaction.STOP_PULLING;
            case FENCED, RUN_NOT_LEASED, DRIFT -> Reaction.FENCE;
          };
      case COMPLETE ->
          switch (kind) {
            case SUCCESS -> Reaction.APPLY;
            case TRANSIENT, OUTCOME_UNKNOWN, NOT_SENT, NOT_SENT_ON_HTTP1 -> Reaction.RESEND;
            case CREDENTIAL_REJECTED, LOCAL_CREDENTIAL_ERROR -> Reaction.SUSPEND;
            case RUN_NOT_LEASED -> Reaction.SETTLE_SUPERSEDED;
            case FENCED -> Reaction.SETTLE_UNDELIVERABLE;
            case CLIENT_BUG -> Reaction.SETTLE_UNDELIVERABLE_STOP_PULLING;
            case DRIFT -> Reaction.RESEND_AND_FAIL_CLOSED;
          };
    };
  }

  /**
   * How long a server's {@code retry-after} is honoured (Clarifications): at most the heartbeat
   * interval for register, heartbeat and transition, at most 60 s for pull and complete.
   *
   * @param heartbeatIntervalMs the last interval the server gave, 0 when none yet
   */
  public static Duration cappedRetryAfter(Operation op, Duration asked, long heartbeatIntervalMs) {
    Duration cap =
        switch (op) {
          case REGISTER, HEARTBEAT, TRANSITION ->
              heartbeatIntervalMs > 0
                  ? Duration.ofMillis(heartbeatIntervalMs)
                  : LEAST_HEARTBEAT_INTERVAL;
          case PULL, COMPLETE -> PULL_AND_COMPLETE_RETRY_AFTER_CAP;
        };
    return asked.compareTo(cap) > 0 ? cap : asked;
  }
}
