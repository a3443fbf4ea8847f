package io.ql3.worker.transport;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.OfferPolicy;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.OperationPath;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.ViolationReason;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The only way the agent talks to the ingress: exactly the five operations of ql3w v1, typed
 * requests in, classified {@link IngressResult}s out, all over one connection. No method takes a
 * URL or path: every path comes from the contract's {@link OperationPath} allow-list.
 *
 * <p>Futures complete on the transport's single thread: do not block in their non-async stages.
 */
public final class IngressClient implements AutoCloseable {
  private final WorkerId workerId;
  private final TransportSettings settings;
  private final IngressConnection connection;

  private IngressClient(
      WorkerId workerId, TransportSettings settings, IngressConnection connection) {
    this.workerId = workerId;
    this.settings = settings;
    this.connection = connection;
  }

  /**
   * Creates the client; no socket is opened until the first operation or {@link #connectAhead()}.
   *
   * @throws CredentialException when the certificate identity is not {@code workerId} (naming both)
   */
  public static IngressClient open(
      IngressEndpoint endpoint,
      WorkerId workerId,
      CredentialProvider credentials,
      TransportSettings settings)
      throws CredentialException {
    String identity = credentials.tls().identity();
    if (!identity.equals(workerId.value())) {
      throw new CredentialException(
          CredentialException.Reason.IDENTITY_MISMATCH,
          "configured workerId '"
              + workerId.value()
              + "' but the certificate identity is '"
              + identity
              + "'");
    }
    return new IngressClient(
        workerId, settings, new IngressConnection(endpoint, settings, credentials));
  }

  public CompletableFuture<IngressResult<RegisterResponse>> register(
      SessionId session, RegisterRequest request) {
    return send(
        new SentRequest(
            OperationPath.register(workerId, session),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<RegisterResponse>) RegisterResponse::parse,
            settings.responseTimeout(),
            false));
  }

  public CompletableFuture<IngressResult<HeartbeatResponse>> heartbeat(
      SessionId session, HeartbeatRequest request) {
    return send(
        new SentRequest(
            OperationPath.heartbeat(workerId, session),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<HeartbeatResponse>) HeartbeatResponse::parse,
            settings.responseTimeout(),
            false));
  }

  public CompletableFuture<IngressResult<TransitionResponse>> transition(
      SessionId session, TransitionRequest request) {
    return send(
        new SentRequest(
            OperationPath.transition(workerId, session),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<TransitionResponse>) TransitionResponse::parse,
            settings.responseTimeout(),
            false));
  }

  /**
   * A pull, parked by the server up to {@code waitMs}; its deadline is the response timeout plus
   * {@code waitMs}. On h2 it may be aborted ({@link #abortPulls()}, or for a credential rotation):
   * the result is then outcome-unknown and the next pull resends the same bytes (same pullId).
   */
  public CompletableFuture<IngressResult<PullResponse>> pull(
      SessionId session, PullRequest request, OfferPolicy policy) {
    return send(
        new SentRequest(
            OperationPath.pull(workerId, session),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<PullResponse>) body -> PullResponse.parse(body, policy),
            settings.responseTimeout().plus(Duration.ofMillis(request.waitMs())),
            true));
  }

  /**
   * A long poll: a {@link #pull} that goes out only on an h2 connection. When the connection this
   * try would use speaks http/1.1 (for example a reconnect fell back to it), the try fails {@link
   * AnswerKind#NOT_SENT_ON_HTTP1} (reason {@link TransportFailure.Reason#HTTP1_CONNECTION}) and
   * nothing is written: on http/1.1 a parked pull would block the one connection (contract section
   * 1). A {@link #resend} of it obeys the same rule.
   */
  public CompletableFuture<IngressResult<PullResponse>> longPoll(
      SessionId session, PullRequest request, OfferPolicy policy) {
    return send(
        new SentRequest(
            OperationPath.pull(workerId, session),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<PullResponse>) body -> PullResponse.parse(body, policy),
            settings.responseTimeout().plus(Duration.ofMillis(request.waitMs())),
            true,
            true));
  }

  public CompletableFuture<IngressResult<CompleteResponse>> complete(
      SessionId session, RunId run, CompleteRequest request) {
    return send(
        new SentRequest(
            OperationPath.complete(workerId, session, run),
            request.toCanonicalBytes(),
            (ResultClassifier.Parser<CompleteResponse>) CompleteResponse::parse,
            settings.responseTimeout(),
            false));
  }

  /**
   * Sends the exact bytes of an earlier try of the same operation again (after an outcome-unknown,
   * not-sent or transient result), with the same path, deadline and answer parsing. The bytes
   * cannot be altered: {@link SentRequest} exposes only copies.
   */
  public <T> CompletableFuture<IngressResult<T>> resend(IngressResult<T> previous) {
    return send(previous.request());
  }

  /**
   * Aborts a parked pull on h2 (shutdown: "stop pulling"). On http/1.1 the short pull is awaited.
   */
  public void abortPulls() {
    connection.abortPulls();
  }

  /**
   * One TLS handshake with the configured credentials and the same server verification as every
   * operation, and no request ({@code ql3-worker check --connect}). Completes with what was
   * negotiated, or exceptionally with a {@link TransportFailure} (connect refused or timed out,
   * server untrusted, name mismatch, no TLS 1.3, our certificate refused). The caller closes the
   * client afterwards.
   *
   * @param confirmWithin on http/1.1, how long to wait for a refusal of our certificate (such a
   *     server says nothing before a request); on h2 the server's SETTINGS are awaited up to the
   *     handshake timeout
   */
  public CompletableFuture<Handshake> handshake(Duration confirmWithin) {
    return connection.handshake(confirmWithin);
  }

  /**
   * Opens the connection now, sending nothing, unless one is open or opening: the TLS handshake
   * (hundreds of milliseconds of CPU on an interpreted edge host) then runs on the transport's
   * thread while the caller does other start-up work, instead of in front of the first request,
   * which takes the connection as it is when it comes. Returns at once. A failure is the
   * connection's, as for a request: logged, and the next try waits for the backoff; nothing is
   * thrown. The one-connection rule holds as for every other socket.
   */
  public void connectAhead() {
    connection.handshake(Duration.ZERO);
  }

  /** Sockets opened so far: each one TLS handshake (for status, metrics and tests). */
  public int connectionsOpened() {
    return connection.connectionsOpened();
  }

  /** The most sockets that were ever open at the same time (the one-connection rule: 1). */
  public int maxOpenSockets() {
    return connection.maxOpenSockets();
  }

  /** The protocol of the current or last connection ({@code h2} or {@code http/1.1}), or null. */
  public String protocol() {
    return connection.protocol();
  }

  @Override
  public void close() {
    connection.close();
  }

  private <T> CompletableFuture<IngressResult<T>> send(SentRequest req) {
    @SuppressWarnings(
        "unchecked") // SentRequests are built only above, each with its operation's parser
    ResultClassifier.Parser<T> parser = (ResultClassifier.Parser<T>) req.parser;
    Operation op = req.operation();
    if (req.bodyUnsafe().length > op.requestCap()) {
      // A sender MUST NOT send a body over its cap: a client bug, caught before the wire.
      return CompletableFuture.completedFuture(
          new IngressResult<>(
              AnswerKind.CLIENT_BUG,
              null,
              -1,
              null,
              null,
              new ContractViolation(
                  ViolationReason.OVER_CAP,
                  "",
                  op.wireName()
                      + " body of "
                      + req.bodyUnsafe().length
                      + " bytes exceeds its cap of "
                      + op.requestCap()),
              req,
              null));
    }
    return connection
        .exchange(
            req.path().path(),
            req.bodyUnsafe(),
            op.responseCap(),
            Operation.ERROR_CAP,
            req.deadline,
            req.abortable,
            req.h2Only)
        .handle(
            (raw, failure) ->
                failure == null
                    ? ResultClassifier.classify(req, parser, raw)
                    : ResultClassifier.<T>classify(req, failure));
  }
}
