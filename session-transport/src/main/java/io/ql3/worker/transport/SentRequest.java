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

  /** Goes out only on an h2 connection (a long poll); kept so a resend obeys the same rule. */
  final boolean h2Only;

  SentRequest(
      OperationPath path,
      byte[] body,
      ResultClassifier.Parser<?> parser,
      java.time.Duration deadline,
      boolean abortable) {
    this(path, body, parser, deadline, abortable, false);
  }

  SentRequest(
      OperationPath path,
      byte[] body,
      ResultClassifier.Parser<?> parser,
      java.time.Duration deadline,
      boolean abortable,
      boolean h2Only) {
    this.path = path;
    this.body = body;
    this.parser = parser;
    this.deadline = deadline;
    this.abortable = abortable;
    this.h2Only = h2Only;
  }

  /**
   * True for a long poll: it is never sent on an http/1.1 connection (see {@link
   * TransportFailure.Reason#HTTP1_CONNECTION}).
   */
  public boolean h2Only() {
    return h2Only;
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
