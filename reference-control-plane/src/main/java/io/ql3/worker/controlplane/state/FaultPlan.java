package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.Operation;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The pending injected faults, consumed in insertion order by matching requests. Own monitor. */
public final class FaultPlan {
  private static final Set<String> OPERATIONS =
      Set.of("register", "heartbeat", "transition", "pull", "complete");

  private final List<Fault> pending = new ArrayList<>();
  private long nextId;

  /**
   * Validates and adds a fault; throws IllegalArgumentException with a clear message on a bad one.
   */
  public synchronized Fault add(
      String operation,
      Fault.Action action,
      int status,
      String code,
      int retryAfterSeconds,
      long delayMs,
      int count) {
    if (operation != null && !OPERATIONS.contains(operation)) {
      throw new IllegalArgumentException(
          "operation must be one of " + OPERATIONS + " (or absent: any)");
    }
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1");
    }
    if (action == Fault.Action.ERROR) {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException("status must be 4xx or 5xx");
      }
      if (inTable(status)) {
        // The contract module owns the pairing (status, and operation: run_not_leased only on
        // complete,
        // the session codes never on complete). A fault for any operation must fit all of them.
        ErrorCode e = code == null ? null : ErrorCode.fromWire(code);
        for (Operation op : Operation.values()) {
          boolean applies = operation == null || op.wireName().equals(operation);
          if (applies && (e == null || !e.belongsTo(status, op))) {
            throw new IllegalArgumentException(
                "code '"
                    + code
                    + "' does not belong to status "
                    + status
                    + " on "
                    + op.wireName()
                    + " in the contract's table");
          }
        }
      } else if (code != null) {
        throw new IllegalArgumentException(
            "status " + status + " has no contract error code: omit code");
      }
    } else if (action == Fault.Action.PROXY_PAGE
        && (status < 400 || status > 599 || code != null)) {
      throw new IllegalArgumentException(
          "a proxy page has a 4xx or 5xx status and no contract code");
    } else if (action == Fault.Action.DELAY && (delayMs < 1 || delayMs > 600_000)) {
      throw new IllegalArgumentException("delayMs must be in 1..600000");
    }
    Fault f =
        new Fault(++nextId, operation, action, status, code, retryAfterSeconds, delayMs, count);
    pending.add(f);
    return f;
  }

  private static boolean inTable(int status) {
    for (ErrorCode e : ErrorCode.values()) {
      for (Operation op : Operation.values()) {
        if (e.belongsTo(status, op)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Consumes one use of the first fault matching {@code operation}, if any. */
  public synchronized Optional<Fault> take(String operation) {
    for (Iterator<Fault> it = pending.iterator(); it.hasNext(); ) {
      Fault f = it.next();
      if (f.operation() == null || f.operation().equals(operation)) {
        int i = pending.indexOf(f);
        Fault left = f.consumeOne();
        if (left.remaining() == 0) {
          pending.remove(i);
        } else {
          pending.set(i, left);
        }
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  public synchronized List<Fault> pending() {
    return List.copyOf(pending);
  }

  public synchronized void clear() {
    pending.clear();
  }
}
