package io.ql3.worker.transport;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.transport.credentials.CredentialException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;

/**
 * Contract section 6 in one place: (answer or failure) of one operation → {@link IngressResult}. A
 * non-200 answer is classified by its status first ({@link AnswerKind#ofStatus}), then refined by a
 * valid contract error body; a body that is not one (a proxy's page, or over the 4096-byte error
 * cap) leaves the status row in force. Only a 200 that breaks its schema or its cap is drift.
 */
final class ResultClassifier {
  /** A strict parser of one operation's 200 body. */
  @FunctionalInterface
  interface Parser<T> {
    T parse(byte[] body) throws ContractViolation;
  }

  private ResultClassifier() {}

  static <T> IngressResult<T> classify(SentRequest req, Parser<T> parser, RawResponse raw) {
    int status = raw.status();
    if (status == 200) {
      try {
        return new IngressResult<>(
            AnswerKind.SUCCESS,
            parser.parse(raw.body()),
            status,
            null,
            null,
            null,
            req,
            raw.protocol());
      } catch (ContractViolation e) {
        return new IngressResult<>(
            AnswerKind.DRIFT, null, status, null, null, e, req, raw.protocol());
      }
    }
    Duration retryAfter = seconds(raw.retryAfterSeconds());
    AnswerKind byStatus = AnswerKind.ofStatus(status).orElseThrow();
    if (byStatus == AnswerKind.OUTCOME_UNKNOWN || byStatus == AnswerKind.DRIFT) {
      // other 5xx: the body is irrelevant (often an intermediary's page); a status no row lists
      // breaks the contract
      return new IngressResult<>(
          byStatus,
          null,
          status,
          null,
          null,
          byStatus == AnswerKind.DRIFT
              ? new IllegalStateException("unexpected HTTP status " + status)
              : null,
          req,
          raw.protocol());
    }
    try {
      // The contract module owns which code belongs to which status and operation.
      ErrorBody error = ErrorBody.parse(status, req.operation(), raw.body());
      AnswerKind kind = error.code().kind();
      return new IngressResult<>(
          kind,
          null,
          status,
          error,
          kind == AnswerKind.TRANSIENT ? retryAfter : null,
          null,
          req,
          raw.protocol());
    } catch (ContractViolation e) {
      return byStatus(req, status, retryAfter, e, raw.protocol());
    }
  }

  /**
   * A non-200 whose body is not a contract error body (or was over its cap): its status row
   * decides.
   */
  private static <T> IngressResult<T> byStatus(
      SentRequest req, int status, Duration retryAfter, Throwable why, String protocol) {
    AnswerKind kind = AnswerKind.ofStatus(status).orElseThrow();
    return new IngressResult<>(
        kind,
        null,
        status,
        null,
        kind == AnswerKind.TRANSIENT ? retryAfter : null,
        why,
        req,
        protocol);
  }

  private static Duration seconds(OptionalLong s) {
    return s.isPresent() ? Duration.ofSeconds(s.getAsLong()) : null;
  }

  static <T> IngressResult<T> classify(SentRequest req, Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (t instanceof CredentialException) {
      return new IngressResult<>(
          AnswerKind.LOCAL_CREDENTIAL_ERROR, null, -1, null, null, t, req, null);
    }
    if (t instanceof TransportFailure f) {
      if (f.reason() == TransportFailure.Reason.RESPONSE_TOO_LARGE
          && f.httpStatus() >= 0
          && f.httpStatus() != 200) {
        return byStatus(req, f.httpStatus(), seconds(f.retryAfterSeconds()), f, null);
      }
      AnswerKind kind =
          switch (f.reason()) {
            // A refusal that reached a request already written is a TLS failure of that request:
            // its outcome is unknown (the connection holds back the next ones until confirmed).
            case CLIENT_CERTIFICATE_REJECTED ->
                f.requestSent() ? AnswerKind.OUTCOME_UNKNOWN : AnswerKind.CREDENTIAL_REJECTED;
            case RESPONSE_TOO_LARGE -> AnswerKind.DRIFT;
            case HTTP1_CONNECTION -> AnswerKind.NOT_SENT_ON_HTTP1;
            default -> f.requestSent() ? AnswerKind.OUTCOME_UNKNOWN : AnswerKind.NOT_SENT;
          };
      return new IngressResult<>(kind, null, -1, null, null, f, req, null);
    }
    // A bug of ours: nothing is known about the wire, so fail safe (resend the same bytes).
    return new IngressResult<>(AnswerKind.OUTCOME_UNKNOWN, null, -1, null, null, t, req, null);
  }
}
