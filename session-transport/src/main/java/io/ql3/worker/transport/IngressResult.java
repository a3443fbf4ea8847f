package io.ql3.worker.transport;

import io.ql3.worker.contract.ErrorBody;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The classified result of one operation (contract section 6). Exactly one {@link Kind}; the
 * typed value only for {@link Kind#SUCCESS}. Every result carries the {@link SentRequest} so an
 * outcome-unknown, not-sent or transient try can be repeated with byte-identical bytes.
 */
public final class IngressResult<T> {
    /** What the caller must do; see docs/transport.md for the table. */
    public enum Kind {
        /** 200 with a body that parsed strictly (semantic drift checks are the caller's). */
        SUCCESS,
        /** 400, 413, 404, 405, or a request body over its cap (not sent): a client bug. */
        CLIENT_BUG,
        /** 401, 403, or a TLS alert refusing our client certificate. */
        CREDENTIAL_REJECTED,
        /** 409 with a session code on register/heartbeat/transition/pull. */
        FENCED,
        /** 409 {@code run_not_leased} on complete. */
        RUN_NOT_LEASED,
        /** 429 or 503; {@link #retryAfter()} when the server sent {@code retry-after} seconds. */
        TRANSIENT,
        /** Other 5xx, reset, timeout or TLS failure after the request was (maybe) sent. */
        OUTCOME_UNKNOWN,
        /** Connect/handshake failure, backoff or deadline before any byte was sent: the server did not act. */
        NOT_SENT,
        /** A 200 body that breaks the contract, a body over its cap, an error body that breaks it, or an unexpected status. */
        DRIFT,
        /** The token file is unusable: the request was not sent. */
        LOCAL_CREDENTIAL_ERROR
    }

    private final Kind kind;
    private final T value;
    private final int httpStatus;
    private final ErrorBody error;
    private final Duration retryAfter;
    private final Throwable cause;
    private final SentRequest request;
    private final String protocol;

    IngressResult(Kind kind, T value, int httpStatus, ErrorBody error, Duration retryAfter, Throwable cause,
            SentRequest request, String protocol) {
        this.kind = Objects.requireNonNull(kind);
        this.value = value;
        this.httpStatus = httpStatus;
        this.error = error;
        this.retryAfter = retryAfter;
        this.cause = cause;
        this.request = request;
        this.protocol = protocol;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isSuccess() {
        return kind == Kind.SUCCESS;
    }

    /** The parsed response; throws unless {@link Kind#SUCCESS}. */
    public T value() {
        if (kind != Kind.SUCCESS) {
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
        return kind == Kind.OUTCOME_UNKNOWN || kind == Kind.NOT_SENT || kind == Kind.TRANSIENT;
    }

    @Override
    public String toString() {
        return "IngressResult[" + kind + ", " + request.operation().wireName()
                + (httpStatus >= 0 ? ", HTTP " + httpStatus : "")
                + (error != null ? ", code " + error.code().wire() : "")
                + (retryAfter != null ? ", retry-after " + retryAfter.toSeconds() + "s" : "")
                + (cause != null ? ", " + cause.getMessage() : "") + "]";
    }
}
