package io.ql3.worker.transport;

import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.transport.IngressResult.Kind;
import io.ql3.worker.transport.credentials.CredentialException;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/** Contract section 6 in one place: (answer or failure) of one operation → {@link IngressResult}. */
final class ResultClassifier {
    /** A strict parser of one operation's 200 body. */
    @FunctionalInterface
    interface Parser<T> {
        T parse(byte[] body) throws ContractViolation;
    }

    private ResultClassifier() {}

    static <T> IngressResult<T> classify(SentRequest req, Parser<T> parser, RawResponse raw) {
        int status = raw.status();
        Duration retryAfter = raw.retryAfterSeconds().isPresent()
                ? Duration.ofSeconds(raw.retryAfterSeconds().getAsLong()) : null;
        Operation op = req.operation();
        if (status == 200) {
            try {
                return new IngressResult<>(Kind.SUCCESS, parser.parse(raw.body()), status, null, null, null, req,
                        raw.protocol());
            } catch (ContractViolation e) {
                return new IngressResult<>(Kind.DRIFT, null, status, null, null, e, req, raw.protocol());
            }
        }
        boolean transientStatus = status == 429 || status == 503;
        boolean contractErrorStatus = transientStatus || status == 400 || status == 401 || status == 403
                || status == 404 || status == 405 || status == 409 || status == 413;
        if (!contractErrorStatus) {
            // other 5xx: the body is irrelevant (often an intermediary's page); other statuses break the contract
            boolean unknown = status >= 500 && status <= 599;
            return new IngressResult<>(unknown ? Kind.OUTCOME_UNKNOWN : Kind.DRIFT, null, status, null, null,
                    unknown ? null : new IllegalStateException("unexpected HTTP status " + status), req, raw.protocol());
        }
        ErrorBody error;
        try {
            // The contract module owns which code belongs to which status and operation, and its class.
            error = ErrorBody.parse(status, op, raw.body());
        } catch (ContractViolation e) {
            if (transientStatus) {
                // 429/503 may come from an intermediary without a contract body: still transient
                return new IngressResult<>(Kind.TRANSIENT, null, status, null, retryAfter, e, req, raw.protocol());
            }
            return new IngressResult<>(Kind.DRIFT, null, status, null, null, e, req, raw.protocol());
        }
        Kind kind = switch (error.code().errorClass()) {
            case CLIENT_BUG -> Kind.CLIENT_BUG;
            case CREDENTIAL -> Kind.CREDENTIAL_REJECTED;
            case FENCED -> Kind.FENCED;
            case RUN_GONE -> Kind.RUN_NOT_LEASED;
            case TRANSIENT -> Kind.TRANSIENT;
        };
        return new IngressResult<>(kind, null, status, error, kind == Kind.TRANSIENT ? retryAfter : null, null, req,
                raw.protocol());
    }

    static <T> IngressResult<T> classify(SentRequest req, Throwable failure) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (t instanceof CredentialException) {
            return new IngressResult<>(Kind.LOCAL_CREDENTIAL_ERROR, null, -1, null, null, t, req, null);
        }
        if (t instanceof TransportFailure f) {
            Kind kind;
            if (f.reason() == TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED) {
                kind = Kind.CREDENTIAL_REJECTED;
            } else if (f.reason() == TransportFailure.Reason.RESPONSE_TOO_LARGE) {
                kind = Kind.DRIFT;
            } else {
                kind = f.requestSent() ? Kind.OUTCOME_UNKNOWN : Kind.NOT_SENT;
            }
            return new IngressResult<>(kind, null, -1, null, null, f, req, null);
        }
        // A bug of ours: nothing is known about the wire, so fail safe (resend the same bytes).
        return new IngressResult<>(Kind.OUTCOME_UNKNOWN, null, -1, null, null, t, req, null);
    }
}
