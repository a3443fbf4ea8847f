package io.ql3.worker.controlplane.ingress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One ingress request at a time: an HTTP/1.1 connection (requests strictly one after the other) or one h2
 * stream. Checks, in order: method (405), path (404/400), certificate identity (403), bearer token (401),
 * headers (400), declared length (413); then reads the body into at most cap+1 bytes (413 as soon as it is
 * over), parses it strictly with the contract module (400), applies injected faults, and hands the
 * request to the {@link ControlPlane}. A refusal decided from the headers is answered after the body has
 * been drained (still capped), so an HTTP/1.1 connection stays usable.
 */
final class IngressHandler extends SimpleChannelInboundHandler<HttpObject> {
  private static final int UNKNOWN_PATH_DRAIN_CAP = 65_536;

  private final IngressContext ctx;
  private final ConnectionRegistry.Conn conn;
  private final boolean h2;

  // Per-request state.
  private boolean inRequest;
  private boolean answered;
  private ContractWire.IngressPath path;
  private String operation = "unknown";
  private ErrorCode refusal;
  private int refusalStatus;
  private String refusalMessage;
  private int cap;
  private byte[] body;
  private int length;
  private boolean keepAlive;
  private String streamId;
  private boolean sessionRequestOpen;
  private Object parkHandle;
  private ScheduledFuture<?> parkTimer;
  /** HTTP/1.1: an answer was written while this read's bytes were still being decoded. */
  private boolean answeredInThisRead;

  IngressHandler(IngressContext ctx, ConnectionRegistry.Conn conn, boolean h2) {
    super(false);
    this.ctx = ctx;
    this.conn = conn;
    this.h2 = h2;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext c, HttpObject msg) {
    try {
      if (msg instanceof HttpRequest req) {
        begin(c, req);
      }
      if (msg instanceof HttpContent content && inRequest && !answered) {
        append(c, content.content());
      }
      if (msg instanceof LastHttpContent && inRequest && !answered) {
        finish(c);
      }
    } finally {
      io.netty.util.ReferenceCountUtil.release(msg);
    }
  }

  private void begin(ChannelHandlerContext c, HttpRequest req) {
    if (inRequest) {
      // HTTP/1.1 pipelining: the contract sends strictly one request at a time.
      ctx.auditor().record(ViolationKind.OVERLAPPING_SESSION_REQUESTS, conn.workerId, null,
          "a second HTTP/1.1 request before the previous one was answered (pipelining)");
      c.close();
      return;
    }
    if (!h2 && answeredInThisRead) {
      // Bytes of this request arrived together with the previous one, before its answer was sent.
      ctx.auditor().record(ViolationKind.OVERLAPPING_SESSION_REQUESTS, conn.workerId, null,
          "HTTP/1.1 request sent before the previous answer was received (pipelining)");
    }
    reset();
    inRequest = true;
    conn.requests.incrementAndGet();
    HttpHeaders headers = req.headers();
    keepAlive = h2 || HttpUtil.isKeepAlive(req);
    streamId = h2 ? headers.get(HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text()) : null;
    cap = UNKNOWN_PATH_DRAIN_CAP;
    if (req.decoderResult().isFailure()) {
      refuse(ErrorCode.CONTRACT_VIOLATION, "malformed HTTP request", ViolationKind.BAD_HEADERS);
      keepAlive = false;
      return;
    }
    ContractWire.IngressPath parsed;
    try {
      parsed = ctx.wire().parsePath(req.uri());
    } catch (ContractWire.Refusal r) {
      refuse(r.code(), r.getMessage(), r.code() == ErrorCode.CONTRACT_VIOLATION
          ? ViolationKind.INVALID_BODY : ViolationKind.UNKNOWN_PATH);
      return;
    }
    path = parsed;
    operation = parsed.operation();
    if (!HttpMethod.POST.equals(req.method())) {
      refuse(ErrorCode.UNKNOWN_OPERATION, "method " + req.method() + " is not allowed; use POST",
          ViolationKind.UNKNOWN_PATH);
      refusalStatus = 405;
      return;
    }
    cap = parsed.requestCap();
    if (!parsed.workerId().equals(conn.workerId)) {
      refuse(ErrorCode.IDENTITY_MISMATCH, "path workerId " + parsed.workerId()
          + " is not the client certificate's identity", ViolationKind.IDENTITY_MISMATCH);
      return;
    }
    if (!ctx.tokens().accepts(parsed.workerId(), bearer(headers.get(HttpHeaderNames.AUTHORIZATION)))) {
      ctx.controlPlane().credentialsRefused(parsed.workerId());
      refuse(ErrorCode.CREDENTIAL_REJECTED, "bearer token rejected", null);
      return;
    }
    if (parsed.sessionOperation()) {
      ctx.controlPlane().sessionRequestStarted(parsed.workerId(), parsed.sessionId(), operation);
      sessionRequestOpen = true;
    }
    java.util.List<String> contentTypes = headers.getAll(HttpHeaderNames.CONTENT_TYPE);
    if (contentTypes.size() != 1
        || !HttpHeaderValues.APPLICATION_JSON.contentEqualsIgnoreCase(contentTypes.get(0).trim())) {
      refuse(ErrorCode.CONTRACT_VIOLATION, "content-type must be application/json", ViolationKind.BAD_HEADERS);
      return;
    }
    auditSoftHeaders(headers);
    long declared = HttpUtil.getContentLength(req, -1L);
    if (!h2 && declared < 0) {
      refuse(ErrorCode.CONTRACT_VIOLATION, "HTTP/1.1 requests carry a content-length", ViolationKind.BAD_HEADERS);
      keepAlive = false;
      return;
    }
    if (declared > cap) {
      overCap(c, "declared content-length " + declared);
    }
  }

  private void auditSoftHeaders(HttpHeaders headers) {
    String accept = headers.get(HttpHeaderNames.ACCEPT);
    String agent = headers.get(HttpHeaderNames.USER_AGENT);
    if (accept == null || !accept.contains("application/json")) {
      ctx.auditor().record(ViolationKind.BAD_HEADERS, path.workerId(), path.sessionId(),
          operation + ": accept is " + accept + ", not application/json");
    }
    if (agent == null || !agent.startsWith("ql3-worker/")) {
      ctx.auditor().record(ViolationKind.BAD_HEADERS, path.workerId(), path.sessionId(),
          operation + ": user-agent is " + agent + ", not ql3-worker/<version>");
    }
  }

  private void append(ChannelHandlerContext c, ByteBuf content) {
    int n = content.readableBytes();
    if (n == 0) {
      return;
    }
    if ((long) length + n > cap) {
      if (refusal == null) {
        overCap(c, "body over " + cap + " bytes");
      } else {
        // Draining a request refused from its headers: answer the refusal now and drop the rest.
        keepAlive = false;
        answerRefusal(c);
      }
      return;
    }
    if (refusal != null) {
      length += n; // draining a refused request: count only
      return;
    }
    if (body == null) {
      body = new byte[Math.min(cap + 1, Math.max(n, 256))];
    }
    if (length + n > body.length) {
      byte[] bigger = new byte[Math.min(cap + 1, Math.max(length + n, body.length * 2))];
      System.arraycopy(body, 0, bigger, 0, length);
      body = bigger;
    }
    content.getBytes(content.readerIndex(), body, length, n);
    length += n;
  }

  private void overCap(ChannelHandlerContext c, String what) {
    keepAlive = false;
    ctx.auditor().record(ViolationKind.PAYLOAD_TOO_LARGE, path == null ? conn.workerId : path.workerId(),
        path == null ? null : path.sessionId(), operation + ": " + what + " (cap " + cap + ")");
    respond(c, error(ErrorCode.PAYLOAD_TOO_LARGE, operation + " body is over its cap of " + cap + " bytes"));
  }

  private void finish(ChannelHandlerContext c) {
    if (refusal != null) {
      answerRefusal(c);
      return;
    }
    byte[] bytes = new byte[length];
    if (length > 0) {
      System.arraycopy(body, 0, bytes, 0, length);
    }
    body = null;
    dispatch(c, bytes);
  }

  private void dispatch(ChannelHandlerContext c, byte[] bytes) {
    ContractWire w = ctx.wire();
    ControlPlane cp = ctx.controlPlane();
    String worker = path.workerId();
    String session = path.sessionId();
    try {
      switch (operation) {
        case "register" -> {
          var cmd = w.parseRegister(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(c, fault)) {
            return;
          }
          deliver(c, cp.register(worker, session, bytes, cmd), fault);
        }
        case "heartbeat" -> {
          var cmd = w.parseHeartbeat(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(c, fault)) {
            return;
          }
          deliver(c, cp.heartbeat(worker, session, bytes, cmd), fault);
        }
        case "transition" -> {
          var cmd = w.parseTransition(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(c, fault)) {
            return;
          }
          deliver(c, cp.transition(worker, session, bytes, cmd), fault);
        }
        case "pull" -> {
          var cmd = w.parsePull(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(c, fault)) {
            return;
          }
          ControlPlane.PullResult result = cp.pull(worker, session, cmd,
              reply -> c.executor().execute(() -> parkAnswered(c, reply, fault)));
          if (result instanceof ControlPlane.Answered a) {
            deliver(c, a.reply(), fault);
          } else if (result instanceof ControlPlane.Parked p) {
            parkHandle = p.handle();
            parkTimer = c.executor().schedule(() -> {
              Object handle = parkHandle;
              if (handle != null && !answered) {
                Reply timedOut = cp.parkTimedOut(handle);
                if (timedOut != null) {
                  parkHandle = null;
                  deliver(c, timedOut, fault);
                }
              }
            }, p.parkMs(), TimeUnit.MILLISECONDS);
          }
        }
        case "complete" -> {
          var cmd = w.parseComplete(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (injectError(c, fault)) {
            return;
          }
          deliver(c, cp.complete(worker, session, path.runId(), bytes, cmd), fault);
        }
        default -> throw new IllegalStateException("unreachable operation " + operation);
      }
    } catch (ContractWire.Refusal r) {
      ctx.auditor().record(r.nonCanonical() ? ViolationKind.NON_CANONICAL_BODY : ViolationKind.INVALID_BODY,
          worker, session, operation + ": " + r.getMessage());
      respond(c, error(r.code(), r.getMessage()));
    }
  }

  private void parkAnswered(ChannelHandlerContext c, Reply reply, Optional<Fault> fault) {
    if (parkHandle == null || answered) {
      return; // the stream went away or the timer answered first
    }
    parkHandle = null;
    if (parkTimer != null) {
      parkTimer.cancel(false);
    }
    deliver(c, reply, fault);
  }

  private boolean injectError(ChannelHandlerContext c, Optional<Fault> fault) {
    if (fault.isEmpty() || fault.get().action() != Fault.Action.ERROR) {
      return false;
    }
    Fault f = fault.get();
    ErrorCode code = f.code() == null ? null : ErrorCode.fromWire(f.code());
    byte[] bytes = code == null ? new byte[0] : ctx.wire().errorBody(code, "injected fault " + f.id());
    ctx.log().event("fault", "injected " + f.status() + " " + f.code() + " on " + operation + " (fault " + f.id() + ")");
    respond(c, new Reply(f.status(), bytes, f.retryAfterSeconds()));
    return true;
  }

  private void deliver(ChannelHandlerContext c, Reply reply, Optional<Fault> fault) {
    if (fault.isPresent() && fault.get().action() == Fault.Action.DROP_AFTER_APPLY) {
      ctx.log().event("fault", "applied " + operation + " then dropped the connection (fault " + fault.get().id() + ")");
      endSessionRequest();
      answered = true;
      (h2 ? c.channel().parent() : c.channel()).close();
      return;
    }
    if (fault.isPresent() && fault.get().action() == Fault.Action.DELAY) {
      ctx.log().event("fault", "applied " + operation + ", answering after " + fault.get().delayMs()
          + " ms (fault " + fault.get().id() + ")");
      c.executor().schedule(() -> respond(c, reply), fault.get().delayMs(), TimeUnit.MILLISECONDS);
      return;
    }
    respond(c, reply);
  }

  private void answerRefusal(ChannelHandlerContext c) {
    respond(c, new Reply(refusalStatus, ctx.wire().errorBody(refusal, refusalMessage), -1));
  }

  private void refuse(ErrorCode code, String message, ViolationKind violation) {
    refusal = code;
    refusalStatus = code.httpStatus();
    refusalMessage = message;
    if (violation != null) {
      ctx.auditor().record(violation, path == null ? conn.workerId : path.workerId(),
          path == null ? null : path.sessionId(), operation + ": " + message);
    }
  }

  private Reply error(ErrorCode code, String message) {
    return new Reply(code.httpStatus(), ctx.wire().errorBody(code, message), -1);
  }

  private void respond(ChannelHandlerContext c, Reply reply) {
    if (answered || !c.channel().isActive()) {
      endSessionRequest();
      return;
    }
    answered = true;
    answeredInThisRead = true;
    // The session request ends before its answer leaves: a client may send the next one on receipt.
    endSessionRequest();
    ctx.stats().count(operation, reply.status());
    if (ctx.verbose() || reply.status() != 200) {
      ctx.log().event("answer", "conn=" + conn.id + " worker=" + (path == null ? conn.workerId : path.workerId())
          + " " + operation + " " + reply.status() + (reply.status() == 200 ? ""
          : " " + new String(reply.body(), java.nio.charset.StandardCharsets.UTF_8)));
    }
    ByteBuf content = Unpooled.wrappedBuffer(reply.body());
    FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
        HttpResponseStatus.valueOf(reply.status()), content);
    HttpHeaders h = res.headers();
    if (reply.body().length > 0) {
      h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    }
    h.setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
    if (reply.retryAfterSeconds() >= 0) {
      h.setInt(HttpHeaderNames.RETRY_AFTER, reply.retryAfterSeconds());
    }
    if (streamId != null) {
      h.set(HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text(), streamId);
    }
    if (!h2 && !keepAlive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    var future = c.writeAndFlush(res);
    if (!keepAlive && h2) {
      // Answered before the request ended (over cap): RST_STREAM NO_ERROR asks the client to stop sending
      // without failing the response it already has (RFC 9113 section 8.1).
      // Only once the answer is written: DATA waits in h2 flow control, a reset would overtake and drop it.
      future.addListener(f -> c.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR))
          .addListener(ChannelFutureListener.CLOSE));
    } else if (!keepAlive) {
      future.addListener(ChannelFutureListener.CLOSE);
    } else {
      inRequest = false;
    }
  }

  private void endSessionRequest() {
    if (sessionRequestOpen) {
      sessionRequestOpen = false;
      ctx.controlPlane().sessionRequestEnded(path.workerId());
    }
  }

  private void reset() {
    answered = false;
    path = null;
    operation = "unknown";
    refusal = null;
    refusalMessage = null;
    body = null;
    length = 0;
    sessionRequestOpen = false;
    parkHandle = null;
    parkTimer = null;
    streamId = null;
  }

  private static String bearer(String header) {
    if (header == null || !header.startsWith("Bearer ")) {
      return null;
    }
    return header.substring("Bearer ".length());
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext c) throws Exception {
    answeredInThisRead = false;
    super.channelReadComplete(c);
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) throws Exception {
    if (parkHandle != null) {
      ctx.controlPlane().parkAbandoned(parkHandle);
      parkHandle = null;
    }
    if (parkTimer != null) {
      parkTimer.cancel(false);
    }
    endSessionRequest();
    super.channelInactive(c);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    ctx.log().event("error", "conn=" + conn.id + " " + cause);
    c.close();
  }
}
