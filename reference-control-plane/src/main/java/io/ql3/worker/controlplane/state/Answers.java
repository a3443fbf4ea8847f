package io.ql3.worker.controlplane.state;

import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * Answer bodies that more than one rule shares or that a contract cap bounds: the error reply of
 * every refusal, and the heartbeat response with its {@code cancelRuns} rotation (at most {@link
 * HeartbeatResponse#MAX_CANCEL_RUNS} ids, and only as many as fit the heartbeat response cap).
 * Called under the {@link ControlPlane} lock (it updates the session's cancel cursor).
 */
final class Answers {
  // Limits owned by the contract module.
  private static final int HEARTBEAT_RESPONSE_CAP = Operation.HEARTBEAT.responseCap();
  private static final int MAX_CANCEL_RUNS = HeartbeatResponse.MAX_CANCEL_RUNS;

  private final WireCodec wire;

  Answers(WireCodec wire) {
    this.wire = wire;
  }

  Reply error(ErrorCode code, String message) {
    return new Reply(code.httpStatus(), wire.errorBody(code, message), -1);
  }

  byte[] heartbeatResponse(Session s, long ttl, boolean workAvailable) {
    List<Run> wanted = new ArrayList<>();
    for (Run r : s.leased) {
      if (r.cancelRequested) {
        wanted.add(r);
      }
    }
    List<String> cancel = new ArrayList<>();
    byte[] base =
        wire.heartbeatResponse(
            List.of(),
            s.generation,
            s.heartbeatIntervalMs,
            ttl,
            s.status,
            s.version,
            workAvailable);
    if (!wanted.isEmpty()) {
      // Rotate through the wanted ones so that more than fit one body all get their turn.
      int size = base.length;
      int start = Math.floorMod(s.cancelCursor, wanted.size());
      for (int i = 0; i < wanted.size() && cancel.size() < MAX_CANCEL_RUNS; i++) {
        String id = wanted.get((start + i) % wanted.size()).runId;
        int add = id.length() + 2 + (cancel.isEmpty() ? 0 : 1);
        if (size + add > HEARTBEAT_RESPONSE_CAP) {
          break;
        }
        size += add;
        cancel.add(id);
      }
      s.cancelCursor = start + cancel.size();
    }
    if (cancel.isEmpty()) {
      return base;
    }
    return wire.heartbeatResponse(
        cancel, s.generation, s.heartbeatIntervalMs, ttl, s.status, s.version, workAvailable);
  }
}
