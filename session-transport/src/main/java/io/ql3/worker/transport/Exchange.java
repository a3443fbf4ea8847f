package io.ql3.worker.transport;

import io.netty.util.concurrent.ScheduledFuture;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One request and its answer. Confined to the event loop except {@link #promise}, which callers
 * observe. The body bytes are the exact bytes to resend after an outcome-unknown failure.
 */
final class Exchange {
  final String path;
  final byte[] body;
  final int responseCap;
  final int errorCap;
  final boolean abortable;

  /** A long poll: never sent on an http/1.1 connection (it would block the one connection). */
  final boolean h2Only;

  final String bearer;
  final long credentialGeneration;
  final CompletableFuture<RawResponse> promise = new CompletableFuture<>();

  private Consumer<Exchange> onDone;
  boolean sent;
  ScheduledFuture<?> deadline;

  /** The h2 connection and stream carrying this exchange, reset when the exchange ends early. */
  Http2Client h2;

  int h2Stream;

  private int status = -1;
  private OptionalLong retryAfter = OptionalLong.empty();
  private CappedBody responseBody;
  private int cap;

  Exchange(
      String path,
      byte[] body,
      int responseCap,
      int errorCap,
      boolean abortable,
      boolean h2Only,
      String bearer,
      long credentialGeneration) {
    this.path = path;
    this.body = body;
    this.responseCap = responseCap;
    this.errorCap = errorCap;
    this.abortable = abortable;
    this.h2Only = h2Only;
    this.bearer = bearer;
    this.credentialGeneration = credentialGeneration;
  }

  void onDone(Consumer<Exchange> onDone) {
    this.onDone = onDone;
  }

  boolean done() {
    return promise.isDone();
  }

  boolean hasStatus() {
    return status >= 0;
  }

  /**
   * The cap is the operation's response cap for a 200 and the error-body cap otherwise.
   *
   * @return false when the declared length already exceeds the cap (the caller stops reading)
   */
  boolean start(int status, CharSequence retryAfter, long contentLength) {
    this.status = status;
    this.retryAfter = RawResponse.parseRetryAfter(retryAfter);
    this.cap = status == 200 ? responseCap : Math.min(responseCap, errorCap);
    this.responseBody = new CappedBody(cap);
    if (contentLength > cap) {
      fail(
          new TransportFailure(
              TransportFailure.Reason.RESPONSE_TOO_LARGE,
              sent,
              status,
              this.retryAfter,
              "declared content-length " + contentLength + " exceeds the cap of " + cap + " bytes",
              null));
      return false;
    }
    return true;
  }

  /**
   * @return false once the body went over the cap (the exchange has failed; the caller stops
   *     reading)
   */
  boolean append(io.netty.buffer.ByteBuf content) {
    if (!responseBody.append(content)) {
      fail(
          new TransportFailure(
              TransportFailure.Reason.RESPONSE_TOO_LARGE,
              sent,
              status,
              retryAfter,
              "response body exceeds the cap of " + cap + " bytes; stopped reading at cap+1",
              null));
      return false;
    }
    return true;
  }

  void succeed(String protocol) {
    if (done()) {
      return;
    }
    cancelDeadline();
    promise.complete(new RawResponse(status, retryAfter, responseBody.toByteArray(), protocol));
    notifyDone();
  }

  void fail(TransportFailure.Reason reason, String message, Throwable cause) {
    fail(new TransportFailure(reason, sent, message, cause));
  }

  void fail(TransportFailure failure) {
    if (done()) {
      return;
    }
    cancelDeadline();
    responseBody = null;
    promise.completeExceptionally(failure.withSent(sent));
    notifyDone();
    if (h2 != null) {
      h2.reset(h2Stream); // no-op when the stream already ended
    }
  }

  private void cancelDeadline() {
    if (deadline != null) {
      deadline.cancel(false);
    }
  }

  private void notifyDone() {
    if (onDone != null) {
      onDone.accept(this);
    }
  }
}
