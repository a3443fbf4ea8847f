package io.ql3.worker.transport;

import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.OperationPath;

/**
 * The exact request of one try: its allow-listed path and canonical body bytes. After an
 * outcome-unknown result the next try of that operation resends these bytes unchanged.
 */
public final class SentRequest {
    private final OperationPath path;
    private final byte[] body;
    // How the answer is read and bounded: kept so a resend behaves exactly like the first try.
    final ResultClassifier.Parser<?> parser;
    final java.time.Duration deadline;
    final boolean abortable;

    SentRequest(OperationPath path, byte[] body, ResultClassifier.Parser<?> parser, java.time.Duration deadline,
            boolean abortable) {
        this.path = path;
        this.body = body;
        this.parser = parser;
        this.deadline = deadline;
        this.abortable = abortable;
    }

    public Operation operation() {
        return path.operation();
    }

    public OperationPath path() {
        return path;
    }

    /** A copy of the canonical body bytes as sent. */
    public byte[] body() {
        return body.clone();
    }

    byte[] bodyUnsafe() {
        return body;
    }

    @Override
    public String toString() {
        return "SentRequest[" + path.path() + ", " + body.length + " bytes]";
    }
}
