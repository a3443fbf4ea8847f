package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.ByteBuf;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One ingress request, the same for HTTP/1.1 and h2. Checks, in order: method (405), path
 * (404/400), certificate identity (403), bearer token (401), headers (400), declared length (413);
 * then reads the body into at most cap+1 bytes (413 as soon as it is over), parses it strictly with
 * the contract module (400), applies injected faults, and hands the request to the {@link
 * ControlPlane}. A refusal decided from the headers is answered after the body has been drained
 * (still capped), so an HTTP/1.1 connection stays usable. Answers at most once. This class makes
 * the checks and answers; the body bytes are kept by {@link CappedBody}, and a request that passed
 * the checks is handed to an {@link OperationCall} (parse, faults, operation, parked pull). Not
 * thread-safe: every call comes from the connection's event loop.
 */
final class IngressExchange {
  private static final String BEARER = "Bearer ";

  private final IngressContext ctx;
  private final ConnectionRegistry.Conn conn;
  private final Responder out;
  private final CappedBody body = new CappedBody();

  private boolean answered;
  private ContractWire.IngressPath path;
  private String operation = "unknown";
  private ErrorCode refusal;
  private int refusalStatus;
  private String refusalMessage;
  private boolean keepAlive = true;
  private boolean sessionRequestOpen;
  private OperationCall call;

  IngressExchange(IngressContext ctx, ConnectionRegistry.Conn conn, Responder out) {
    this.ctx = ctx;
    this.conn = conn;
    this.out = out;
  }

  /** True once the answer was written (or the request was given up). */
  boolean answered() {
    return answered;
  }

  /** False when the answer ended the request early and the connection (h1) must not be reused. */
  boolean keepAlive() {
    return keepAlive;
  }

  void begin(RequestHead req) {
    conn.requested();
    keepAlive = req.keepAlive();
    if (req.malformed()) {
      refuse(ErrorCode.CONTRACT_VIOLATION, "malformed HTTP request", ViolationKind.BAD_HEADERS);
      keepAlive = false;
      return;
    }
    ContractWire.IngressPath parsed;
    try {
      parsed = ctx.wire().parsePath(req.uri());
    } catch (ContractWire.Refusal r) {
      refuse(
          r.code(),
          r.getMessage(),
          r.code() == ErrorCode.CONTRACT_VIOLATION
              ? ViolationKind.INVALID_BODY
              : ViolationKind.UNKNOWN_PATH);
      return;
    }
    path = parsed;
    operation = parsed.operation();
    if (!"POST".equals(req.method())) {
      refuse(
          ErrorCode.UNKNOWN_OPERATION,
          "method " + req.method() + " is not allowed; use POST",
          ViolationKind.UNKNOWN_PATH);
      refusalStatus = 405;
      return;
    }
    body.cap(parsed.requestCap());
    if (!parsed.workerId().equals(conn.workerId)) {
      refuse(
          ErrorCode.IDENTITY_MISMATCH,
          "path workerId " + parsed.workerId() + " is not the client certificate's identity",
          ViolationKind.IDENTITY_MISMATCH);
      return;
    }
    if (!ctx.tokens().accepts(parsed.workerId(), bearer(req.authorization()))) {
      ctx.controlPlane().credentialsRefused(parsed.workerId());
      refuse(ErrorCode.CREDENTIAL_REJECTED, "bearer token rejected", null);
      return;
    }
    if (parsed.sessionOperation()) {
      ctx.controlPlane().sessionRequestStarted(parsed.workerId(), parsed.sessionId(), operation);
      sessionRequestOpen = true;
    }
    List<String> contentTypes = req.contentTypes();
    if (contentTypes.size() != 1
        || !"application/json".equalsIgnoreCase(contentTypes.get(0).trim())) {
      refuse(
          ErrorCode.CONTRACT_VIOLATION,
          "content-type must be application/json",
          ViolationKind.BAD_HEADERS);
      return;
    }
    auditSoftHeaders(req);
    body.declared(req.declaredLength());
    if (!conn.h2() && body.declared() < 0) {
      refuse(
          ErrorCode.CONTRACT_VIOLATION,
          "HTTP/1.1 requests carry a content-length",
          ViolationKind.BAD_HEADERS);
      keepAlive = false;
      return;
    }
    if (body.declared() > body.cap()) {
      overCap("declared content-length " + body.declared());
    }
  }

  private void auditSoftHeaders(RequestHead req) {
    String accept = req.accept();
    String agent = req.userAgent();
    if (accept == null || !accept.contains("application/json")) {
      ctx.auditor()
          .record(
              ViolationKind.BAD_HEADERS,
              path.workerId(),
              path.sessionId(),
              operation + ": accept is " + accept + ", not application/json");
    }
    if (agent == null || !agent.startsWith("ql3-worker/")) {
      ctx.auditor()
          .record(
              ViolationKind.BAD_HEADERS,
              path.workerId(),
              path.sessionId(),
              operation + ": user-agent is " + agent + ", not ql3-worker/<version>");
    }
  }

  /** A piece of the body; ignored once answered. Does not release {@code content}. */
  void content(ByteBuf content) {
    if (answered) {
      return;
    }
    int n = content.readableBytes();
    if (n == 0) {
      return;
    }
    if (body.over(n)) {
      if (refusal == null) {
        overCap("body over " + body.cap() + " bytes");
      } else {
        // Draining a request refused from its headers: answer the refusal now and drop the rest.
        keepAlive = false;
        answerRefusal();
      }
      return;
    }
    if (refusal != null) {
      body.count(n);
      return;
    }
    body.append(content, n);
  }

  private void overCap(String what) {
    keepAlive = false;
    ctx.auditor()
        .record(
            ViolationKind.PAYLOAD_TOO_LARGE,
            path == null ? conn.workerId : path.workerId(),
            path == null ? null : path.sessionId(),
            operation + ": " + what + " (cap " + body.cap() + ")");
    respond(
        error(
            ErrorCode.PAYLOAD_TOO_LARGE,
            operation + " body is over its cap of " + body.cap() + " bytes"));
  }

  /** The request ended; ignored once answered. */
  void end() {
    if (answered) {
      return;
    }
    if (refusal != null) {
      answerRefusal();
      return;
    }
    call = new OperationCall(ctx, this, out, path, operation);
    call.dispatch(body.take());
  }

  /**
   * Gives the request up without an answer and closes the whole connection (the drop-after-apply
   * fault): the session request ends first.
   */
  void dropConnection() {
    endSessionRequest();
    answered = true;
    out.dropConnection();
  }

  private void answerRefusal() {
    respond(new Reply(refusalStatus, ctx.wire().errorBody(refusal, refusalMessage), -1));
  }

  private void refuse(ErrorCode code, String message, ViolationKind violation) {
    refusal = code;
    refusalStatus = code.httpStatus();
    refusalMessage = message;
    if (violation != null) {
      ctx.auditor()
          .record(
              violation,
              path == null ? conn.workerId : path.workerId(),
              path == null ? null : path.sessionId(),
              operation + ": " + message);
    }
  }

  /** A contract error answer: the code's status and its canonical error body. */
  Reply error(ErrorCode code, String message) {
    return new Reply(code.httpStatus(), ctx.wire().errorBody(code, message), -1);
  }

  /** Answers, once: ignored when already answered or gone (the session request still ends). */
  void respond(Reply reply) {
    if (answered || !out.isActive()) {
      endSessionRequest();
      return;
    }
    answered = true;
    // The session request ends before its answer leaves: a client may send the next one on receipt.
    endSessionRequest();
    ctx.stats().count(path == null ? null : path.op(), reply.status());
    if (ctx.verbose() || reply.status() != 200) {
      ctx.log()
          .event(
              "answer",
              "conn="
                  + conn.id
                  + " worker="
                  + (path == null ? conn.workerId : path.workerId())
                  + " "
                  + operation
                  + " "
                  + reply.status()
                  + (reply.status() == 200
                      ? ""
                      : " " + new String(reply.body(), StandardCharsets.UTF_8)));
    }
    out.send(reply.status(), reply.body(), reply.retryAfterSeconds(), !keepAlive);
  }

  private void endSessionRequest() {
    if (sessionRequestOpen) {
      sessionRequestOpen = false;
      ctx.controlPlane().sessionRequestEnded(path.workerId());
    }
  }

  /** The stream or connection went away: give up a parked pull and end the session request. */
  void inactive() {
    if (call != null) {
      call.inactive();
    }
    endSessionRequest();
  }

  private static String bearer(String header) {
    if (header == null || !header.startsWith(BEARER)) {
      return null;
    }
    return header.substring(BEARER.length());
  }
}
