package io.ql3.worker.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The exchanges of the one connection: waiting for it (in order), then in flight on it, and the
 * ways they end together (aborted, refused, failed). An exchange leaves through {@link #done} once
 * it completes. Event-loop confined.
 */
final class Exchanges {
  private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
  private final Set<Exchange> inFlight = new LinkedHashSet<>();

  void add(Exchange ex) {
    waiting.add(ex);
  }

  /** The exchange completed: it leaves, wherever it was. */
  void done(Exchange ex) {
    inFlight.remove(ex);
    waiting.remove(ex);
  }

  boolean anyWaiting() {
    return !waiting.isEmpty();
  }

  boolean noneInFlight() {
    return inFlight.isEmpty();
  }

  boolean isInFlight(Exchange ex) {
    return inFlight.contains(ex);
  }

  /** The oldest waiting exchange, now in flight: the caller sends it. */
  Exchange nextToSend() {
    Exchange ex = waiting.poll();
    inFlight.add(ex);
    return ex;
  }

  /**
   * Aborts parked pulls: the waiting ones, and on h2 ({@code inFlightToo}) the ones in flight (an
   * http/1.1 pull is never aborted, per the contract).
   */
  void abortPulls(boolean inFlightToo) {
    if (inFlightToo) {
      for (Exchange ex : new ArrayList<>(inFlight)) {
        if (ex.abortable) {
          ex.fail(TransportFailure.Reason.ABORTED, "pull aborted", null);
        }
      }
    }
    for (Exchange ex : new ArrayList<>(waiting)) {
      if (ex.abortable) {
        waiting.remove(ex);
        ex.fail(TransportFailure.Reason.ABORTED, "pull aborted before it was sent", null);
      }
    }
  }

  /** Aborts the parked pulls in flight, {@code why} being the reason (the connection goes). */
  void abortPullsInFlight(String why) {
    for (Exchange ex : new ArrayList<>(inFlight)) {
      if (ex.abortable) {
        ex.fail(TransportFailure.Reason.ABORTED, why, null);
      }
    }
  }

  /**
   * A long poll never goes out on http/1.1: it would hold the one connection for its whole wait
   * (contract section 1). It fails here, before any byte of it is written, so the caller learns the
   * protocol of the connection this very try would have used and decides (docs/runtime.md).
   */
  void failLongPollsOnHttp1() {
    for (Exchange ex : new ArrayList<>(waiting)) {
      if (ex.h2Only) {
        waiting.remove(ex);
        ex.fail(
            TransportFailure.Reason.HTTP1_CONNECTION,
            "a long poll is never sent on http/1.1",
            null);
      }
    }
  }

  /** Nothing was sent: every waiting exchange fails with {@code failure}. */
  void failWaiting(TransportFailure failure) {
    for (Exchange ex : new ArrayList<>(waiting)) {
      ex.fail(failure);
    }
  }

  /** The connection closed: every exchange in flight fails, and none is left in flight. */
  void failInFlight(TransportFailure.Reason reason, String message, Throwable cause) {
    for (Exchange ex : new ArrayList<>(inFlight)) {
      ex.fail(reason, message, cause);
    }
    inFlight.clear();
  }

  /** The transport closed: every exchange, waiting or in flight, fails. */
  void failAll(TransportFailure.Reason reason, String message) {
    for (Exchange ex : new ArrayList<>(waiting)) {
      ex.fail(reason, message, null);
    }
    for (Exchange ex : new ArrayList<>(inFlight)) {
      ex.fail(reason, message, null);
    }
  }
}
