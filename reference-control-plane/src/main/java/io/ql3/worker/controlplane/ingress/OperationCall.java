package io.ql3.worker.controlplane.ingress;

import io.netty.util.concurrent.ScheduledFuture;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.Fault;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.ViolationKind;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One request that passed the ingress checks, handed to its {@link ControlPlane} operation: parses
 * the body strictly with the contract module (400, recorded as a violation), takes the operation's
 * injected fault ({@link FaultInjection}), applies the operation and delivers its reply. A parked
 * pull is answered later by the ControlPlane's wake or by its timer, whichever comes first, or
 * abandoned when the stream goes away. Not thread-safe: every call comes from the connection's
 * event loop (a wake is handed over to it).
 */
final class OperationCall {
  private final IngressContext ctx;
  private final IngressExchange exchange;
  private final Responder out;
  private final ContractWire.IngressPath path;
  private final String operation;
  private final FaultInjection faults;

  private Object parkHandle;
  private ScheduledFuture<?> parkTimer;

  OperationCall(
      IngressContext ctx,
      IngressExchange exchange,
      Responder out,
      ContractWire.IngressPath path,
      String operation) {
    this.ctx = ctx;
    this.exchange = exchange;
    this.out = out;
    this.path = path;
    this.operation = operation;
    this.faults = new FaultInjection(ctx, exchange, out, operation);
  }

  /** Parses {@code bytes}, applies the operation and answers, or parks a pull until it is woken. */
  void dispatch(byte[] bytes) {
    ContractWire w = ctx.wire();
    ControlPlane cp = ctx.controlPlane();
    String worker = path.workerId();
    String session = path.sessionId();
    try {
      switch (path.op()) {
        case REGISTER -> {
          var cmd = w.parseRegister(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (faults.injectError(fault)) {
            return;
          }
          faults.deliver(cp.register(worker, session, bytes, cmd), fault);
        }
        case HEARTBEAT -> {
          var cmd = w.parseHeartbeat(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (faults.injectError(fault)) {
            return;
          }
          faults.deliver(cp.heartbeat(worker, session, bytes, cmd), fault);
        }
        case TRANSITION -> {
          var cmd = w.parseTransition(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (faults.injectError(fault)) {
            return;
          }
          faults.deliver(cp.transition(worker, session, bytes, cmd), fault);
        }
        case PULL -> {
          var cmd = w.parsePull(bytes);
          Optional<Fault> fault = ctx.faults().take(operation);
          if (faults.injectError(fault)) {
            return;
          }
          ControlPlane.PullResult result =
              cp.pull(
                  worker,
                  session,
                  cmd,
                  reply -> out.executor().execute(() -> parkAnswered(reply, fault)));
          if (result instanceof ControlPlane.Answered a) {
            faults.deliver(a.reply(), fault);
          } else if (result instanceof ControlPlane.Parked p) {
            parkHandle = p.handle();
            parkTimer =
                out.executor()
                    .schedule(
                        () -> {
                          Object handle = parkHandle;
                          if (handle != null && !exchange.answered()) {
                            Reply timedOut = cp.parkTimedOut(handle);
                            if (timedOut != null) {
                              parkHandle = null;
                              faults.deliver(timedOut, fault);
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
          if (faults.injectError(fault)) {
            return;
          }
          faults.deliver(cp.complete(worker, session, path.runId(), bytes, cmd), fault);
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
      exchange.respond(exchange.error(r.code(), r.getMessage()));
    }
  }

  private void parkAnswered(Reply reply, Optional<Fault> fault) {
    if (parkHandle == null || exchange.answered()) {
      return; // the stream went away or the timer answered first
    }
    parkHandle = null;
    if (parkTimer != null) {
      parkTimer.cancel(false);
    }
    faults.deliver(reply, fault);
  }

  /** The stream or connection went away: give up a parked pull. */
  void inactive() {
    if (parkHandle != null) {
      ctx.controlPlane().parkAbandoned(parkHandle);
      parkHandle = null;
    }
    if (parkTimer != null) {
      parkTimer.cancel(false);
    }
  }
}
