package io.ql3.worker.transport;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.ErrorBody;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The classified result of one operation (contract section 6). Exactly one {@link AnswerKind} (the
 * contract's one vocabulary); the typed value only for {@link AnswerKind#SUCCESS}. Every result
 * carries the {@link SentRequest} so an outcome-unknown, not-sent or transient try can be repeated
 * with byte-identical bytes.
 */
public final class IngressResult<T> {
  private final AnswerKind kind;
  private final T value;
  private final int httpStatus;
  private final ErrorBody error;
  private final Duration retryAfter;
  private final Throwable cause;
  private final SentRequest request;
  private final String protocol;

  IngressResult(
      AnswerKind kind,
      T value,
      int httpStatus,
      ErrorBody error,
      Duration retryAfter,
      Throwable cause,
      SentRequest request,
      String protocol) {
    this.kind = Objects.requireNonNull(kind);
    this.value = value;
    this.httpStatus = httpStatus;
    this.error = error;
    this.retryAfter = retryAfter;
    this.cause = cause;
    this.request = request;
    this.protocol = protocol;
  }

  public AnswerKind kind() {
    return kind;
  }

  public boolean isSuccess() {
    return kind == AnswerKind.SUCCESS;
  }

  /** The parsed response; throws unless {@link AnswerKind#SUCCESS}. */
  public T value() {
    if (kind != AnswerKind.SUCCESS) {
      throw new IllegalStateException("no value: " + this);
    }
    return value;
  }

  /** HTTP status, or -1 when no complete answer arrived. */
  public int httpStatus() {
    return httpStatus;
  }

  public Optional<ErrorBody> error() {
    return Optional.ofNullable(error);
  }

  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** The TransportFailure, ContractViolation or CredentialException behind a non-success. */
  public Optional<Throwable> cause() {
    return Optional.ofNullable(cause);
  }

  public SentRequest request() {
    return request;
  }

  /** {@code h2} or {@code http/1.1} when an answer arrived. */
  public Optional<String> protocol() {
    return Optional.ofNullable(protocol);
  }

  /** True when the same bytes may (and, for outcome-unknown, must) be sent again on a later try. */
  public boolean resendable() {
    return kind == AnswerKind.OUTCOME_UNKNOWN
        || kind == AnswerKind.NOT_SENT
        || kind == AnswerKind.NOT_SENT_ON_HTTP1
        || kind == AnswerKind.TRANSIENT;
  }

  /** This result as the runtime reacts to it: the public sealed answer type. */
  public Answer<T> answer() {
    if (kind == AnswerKind.SUCCESS) {
      return Answer.success(value);
    }
    return new Answer.Refusal<>(
        kind,
        httpStatus,
        error == null ? null : error.code(),
        Optional.ofNullable(retryAfter),
        cause instanceof ContractViolation v ? v : null,
        request.operation().wireName() + (cause != null ? ": " + cause.getMessage() : ""));
  }

  @Override
  public String toString() {
    return "IngressResult["
        + kind
        + ", "
        + request.operation().wireName()
        + (httpStatus >= 0 ? ", HTTP " + httpStatus : "")
        + (error != null ? ", code " + error.code().wire() : "")
        + (retryAfter != null ? ", retry-after " + retryAfter.toSeconds() + "s" : "")
        + (cause != null ? ", " + cause.getMessage() : "")
        + "]";
  }
}
