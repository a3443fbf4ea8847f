package io.ql3.worker.controlplane.ingress;

import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Reply;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The faults injected (admin {@code POST /faults}) into one request's answer: before the operation,
 * an error status with a contract error body or an intermediary's HTML page instead of applying it;
 * after it, dropping the connection instead of answering, or answering late. Logs each one as a
 * {@code fault} event. Not thread-safe: every call comes from the connection's event loop.
 */
final class FaultInjection {
  /** An intermediary's error page: HTML, 5 KB, over the contract's 4096-byte error cap. */
  static final byte[] PROXY_PAGE =
      ("<html><head><title>Service Unavailable</title></head><body><h1>"
              + "The upstream is unavailable</h1><p>"
              + "Please try again later. ".repeat(220)
              + "</p></body></html>")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final IngressContext ctx;
  private final IngressExchange exchange;
  private final Responder out;
  private final String operation;

  FaultInjection(IngressContext ctx, IngressExchange exchange, Responder out, String operation) {
    this.ctx = ctx;
    this.exchange = exchange;
    this.out = out;
    this.operation = operation;
  }

  /** True when {@code fault} answered the request in place of the operation (error, proxy page). */
  boolean injectError(Optional<Fault> fault) {
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
      exchange.respond(new Reply(f.status(), PROXY_PAGE, f.retryAfterSeconds()));
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
    exchange.respond(new Reply(f.status(), bytes, f.retryAfterSeconds()));
    return true;
  }

  /** Answers the applied operation's {@code reply}, unless {@code fault} drops or delays it. */
  void deliver(Reply reply, Optional<Fault> fault) {
    if (fault.isPresent() && fault.get().action() == Fault.Action.DROP_AFTER_APPLY) {
      ctx.log()
          .event(
              "fault",
              "applied "
                  + operation
                  + " then dropped the connection (fault "
                  + fault.get().id()
                  + ")");
      exchange.dropConnection();
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
      out.executor()
          .schedule(() -> exchange.respond(reply), fault.get().delayMs(), TimeUnit.MILLISECONDS);
      return;
    }
    exchange.respond(reply);
  }
}
