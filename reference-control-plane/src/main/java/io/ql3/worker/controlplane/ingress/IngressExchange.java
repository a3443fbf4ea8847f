package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One ingress request, the same for HTTP/1.1 and h2. Checks, in order: method (405), path
 * (404/400), certificate identity (403), bearer token (401), headers (400), declared length (413);
 * then reads the body into at most cap+1 bytes (413 as soon as it is over), parses it strictly with
 * the contract module (400), applies injected faults, and hands the request to the {@link
 * ControlPlane}. A refusal decided from the headers is answered after the body has been drained
 * (still capped), so an HTTP/1.1 connection stays usable. Not thread-safe: every call comes from
 * the connection's event loop.
 */
final class IngressExchange {
  private static final int UNKNOWN_PATH_DRAIN_CAP = 65_536;
  private static final String BEARER = "Bearer ";

  private final IngressContext ctx;
  private final ConnectionRegistry.Conn conn;
  private final Responder out;

  private boolean answered;
  private ContractWire.IngressPath path;
  private String operation = "unknown";
  private ErrorCode refusal;
  private int refusalStatus;
  private String refusalMessage;
  private int cap = UNKNOWN_PATH_DRAIN_CAP;
  private byte[] body;
  private int length;
  private long declared = -1;
  private boolean keepAlive = true;
  private boolean sessionRequestOpen;
  private Object parkHandle;
  private ScheduledFuture<?> parkTimer;

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
    cap = parsed.requestCap();
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
    declared = req.declaredLength();
    if (!conn.h2() && declared < 0) {
      refuse(
          ErrorCode.CONTRACT_VIOLATION,
          "HTTP/1.1 requests carry a content-length",
          ViolationKind.BAD_HEADERS);
      keepAlive = false;
      return;
    }
    if (declared > cap) {
      overCap("declared content-length " + declared);
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
    if ((long) length + n > cap) {
      if (refusal == null) {
        overCap("body over " + cap + " bytes");
      } else {
        // Draining a request refused from its headers: answer the refusal now and drop the rest.
        keepAlive = false;
        answerRefusal();
      }
      return;
    }
    if (refusal != null) {
      length += n; // draining a refused request: count only
      return;
    }
    if (body == null) {
      // The declared length (at most the cap here) is the usual exact size: no copy at the end.
      body = new byte[declared >= n ? (int) declared : Math.min(cap + 1, Math.max(n, 256))];
    }
    if (length + n > body.length) {
      byte[] bigger = new byte[Math.min(cap + 1, Math.max(length + n, body.length * 2))];
      System.arraycopy(body, 0, bigger, 0, length);
      body = bigger;
    }
    content.getBytes(content.readerIndex(), body, length, n);
    length += n;
  }

  private void overCap(String what) {
    keepAlive = false;
    ctx.auditor()
        .record(
            ViolationKind.PAYLOAD_TOO_LARGE,
            path == null ? conn.workerId : path.workerId(),
            path == null ? null : path.sessionId(),
            operation + ": " + what + " (cap " + cap + ")");
    respond(
        error(
            ErrorCode.PAYLOAD_TOO_LARGE, operation + " body is over its cap of " + cap + " bytes"));
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
    byte[] bytes =
        length == 0
            ? new byte[0]
            : body.length == length ? body : java.util.Arrays.copyOf(body, length);
    body = null;
    dispatch(bytes);
  }

  private void dispatch(byte[] bytes) {
    ContractWire w = ctx.wire();
    ControlPlane cp = ctx.controlPlane();
    String worker = path.workerId();
    String session = path.sessionId();
    try {
      switch (path.op()) {
        case REGISTER -> {
          var cmd = w.parseRegister(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(fault)) {
            return;
          }
          deliver(cp.register(worker, session, bytes, cmd), fault);
        }
        case HEARTBEAT -> {
          var cmd = w.parseHeartbeat(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(fault)) {
            return;
          }
          deliver(cp.heartbeat(worker, session, bytes, cmd), fault);
        }
        case TRANSITION -> {
          var cmd = w.parseTransition(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(fault)) {
            return;
          }
          deliver(cp.transition(worker, session, bytes, cmd), fault);
        }
        case PULL -> {
          var cmd = w.parsePull(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(fault)) {
            return;
          }
          ControlPlane.PullResult result =
              cp.pull(
                  worker,
                  session,
                  cmd,
                  reply -> out.executor().execute(() -> parkAnswered(reply, fault)));
          if (result instanceof ControlPlane.Answered a) {
            deliver(a.reply(), fault);
          } else if (result instanceof ControlPlane.Parked p) {
            parkHandle = p.handle();
            parkTimer =
                out.executor()
                    .schedule(
                        () -> {
                          Object handle = parkHandle;
                          if (handle != null && !answered) {
                            Reply timedOut = cp.parkTimedOut(handle);
                            if (timedOut != null) {
                              parkHandle = null;
                              deliver(timedOut, fault);
                            }
                          }
                        },
                        p.parkMs(),
                        TimeUnit.MILLISECONDS);
          }
        }
        case COMPLETE -> {
          var cmd = w.parseComplete(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(fault)) {
            return;
          }
          deliver(cp.complete(worker, session, path.runId(), bytes, cmd), fault);
        }
        default -> throw new IllegalStateException("unreachable operation " + operation);
      }
    } catch (ContractWire.Refusal r) {
      ctx.auditor()
          .record(
              r.nonCanonical() ? ViolationKind.NON_CANONICAL_BODY : ViolationKind.INVALID_BODY,
              worker,
              session,
              operation + ": " + r.getMessage());
      respond(error(r.code(), r.getMessage()));
    }
  }

  private void parkAnswered(Reply reply, Optional<Fault> fault) {
    if (parkHandle == null || answered) {
      return; // the stream went away or the timer answered first
    }
    parkHandle = null;
    if (parkTimer != null) {
      parkTimer.cancel(false);
    }
    deliver(reply, fault);
  }

  /** An intermediary's error page: HTML, 5 KB, over the contract's 4096-byte error cap. */
  static final byte[] PROXY_PAGE =
      ("<html><head><title>Service Unavailable</title></head><body><h1>"
              + "The upstream is unavailable</h1><p>"
              + "Please try again later. ".repeat(220)
              + "</p></body></html>")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private boolean injectError(Optional<Fault> fault) {
    if (fault.isPresent() && fault.get().action() == Fault.Action.PROXY_PAGE) {
      Fault f = fault.get();
      ctx.log()
          .event(
              "fault",
              "injected a "
                  + PROXY_PAGE.length
                  + "-byte proxy page "
                  + f.status()
                  + " on "
                  + operation
                  + " (fault "
                  + f.id()
                  + ")");
      respond(new Reply(f.status(), PROXY_PAGE, f.retryAfterSeconds()));
      return true;
    }
    if (fault.isEmpty() || fault.get().action() != Fault.Action.ERROR) {
      return false;
    }
    Fault f = fault.get();
    ErrorCode code = f.code() == null ? null : ErrorCode.fromWire(f.code());
    byte[] bytes =
        code == null ? new byte[0] : ctx.wire().errorBody(code, "injected fault " + f.id());
    ctx.log()
        .event(
            "fault",
            "injected "
                + f.status()
                + " "
                + f.code()
                + " on "
                + operation
                + " (fault "
                + f.id()
                + ")");
    respond(new Reply(f.status(), bytes, f.retryAfterSeconds()));
    return true;
  }

  private void deliver(Reply reply, Optional<Fault> fault) {
    if (fault.isPresent() && fault.get().action() == Fault.Action.DROP_AFTER_APPLY) {
      ctx.log()
          .event(
              "fault",
              "applied "
                  + operation
                  + " then dropped the connection (fault "
                  + fault.get().id()
                  + ")");
      endSessionRequest();
      answered = true;
      out.dropConnection();
      return;
    }
    if (fault.isPresent() && fault.get().action() == Fault.Action.DELAY) {
      ctx.log()
          .event(
              "fault",
              "applied "
                  + operation
                  + ", answering after "
                  + fault.get().delayMs()
                  + " ms (fault "
                  + fault.get().id()
                  + ")");
      out.executor().schedule(() -> respond(reply), fault.get().delayMs(), TimeUnit.MILLISECONDS);
      return;
    }
    respond(reply);
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

  private Reply error(ErrorCode code, String message) {
    return new Reply(code.httpStatus(), ctx.wire().errorBody(code, message), -1);
  }

  private void respond(Reply reply) {
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
    if (parkHandle != null) {
      ctx.controlPlane().parkAbandoned(parkHandle);
      parkHandle = null;
    }
    if (parkTimer != null) {
      parkTimer.cancel(false);
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
