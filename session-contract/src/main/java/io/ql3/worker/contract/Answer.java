package io.ql3.worker.contract;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer to one operation as the runtime reacts to it: a parsed 200 or a classified refusal
 * (section 6). Built by the transport ({@code IngressResult#answer()}); tests build their own to
 * drive the session and execution state machines without TLS.
 */
public sealed interface Answer<T> {
  AnswerKind kind();

  /** What the server asked for with {@code retry-after} (429/503), uncapped. */
  default Optional<Duration> retryAfter() {
    return Optional.empty();
  }

  /** A strictly parsed 200 body. */
  record Success<T>(T value) implements Answer<T> {
    public Success {
      Objects.requireNonNull(value);
    }

    @Override
    public AnswerKind kind() {
      return AnswerKind.SUCCESS;
    }

    @Override
    public String toString() {
      return "SUCCESS";
    }
  }

  /**
   * Anything but a 200 that parsed.
   *
   * @param httpStatus the status, or -1 when no complete answer arrived
   * @param code the contract error code, when the body was a valid error body
   * @param retryAfter {@code retry-after} of a 429/503, when sent
   * @param violation what broke the contract, for {@link AnswerKind#DRIFT}, or null
   * @param detail a one-line description for logs and status
   */
  record Refusal<T>(
      AnswerKind kind,
      int httpStatus,
      ErrorCode code,
      Optional<Duration> retryAfter,
      ContractViolation violation,
      String detail)
      implements Answer<T> {
    public Refusal {
      Objects.requireNonNull(kind);
      if (kind == AnswerKind.SUCCESS) {
        throw new IllegalArgumentException("a refusal is not a success");
      }
      detail = detail == null ? "" : detail;
      retryAfter = retryAfter == null ? Optional.empty() : retryAfter;
    }

    /** The drift this answer is, for {@link AnswerKind#DRIFT}. */
    public Drift drift() {
      return violation != null
          ? Drift.of(violation)
          : new Drift(DriftReason.CONTRACT_VIOLATION, toString());
    }

    @Override
    public String toString() {
      return kind
          + (httpStatus >= 0 ? ", HTTP " + httpStatus : "")
          + (code != null ? ", code " + code.wire() : "")
          + retryAfter.map(d -> ", retry-after " + d.toSeconds() + "s").orElse("")
          + (detail.isEmpty() ? "" : ", " + detail);
    }
  }

  static <T> Answer<T> success(T value) {
    return new Success<>(value);
  }

  /** A refusal with no status, code or retry-after (transport failures, tests). */
  static <T> Answer<T> refused(AnswerKind kind, String detail) {
    return new Refusal<>(kind, -1, null, Optional.empty(), null, detail);
  }
}
