package io.ql3.worker.contract;

import java.util.Objects;
import java.util.Optional;

/**
 * The path allow-list (section 2): exactly five templates under {@code
 * /ql3w/v1/workers/{workerId}/sessions/{sessionId}/}. The client builds paths only through the
 * factories; a server maps raw paths with {@link #parse(String)}.
 */
public final class OperationPath {
  private static final String PREFIX = "/ql3w/v1/workers/";

  private final Operation operation;
  private final WorkerId workerId;
  private final SessionId sessionId;
  private final RunId runId;
  private final String path;

  private OperationPath(Operation operation, WorkerId workerId, SessionId sessionId, RunId runId) {
    this.operation = operation;
    this.workerId = Objects.requireNonNull(workerId, "workerId");
    this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
    this.runId = runId;
    String base = PREFIX + workerId.value() + "/sessions/" + sessionId.value() + "/";
    this.path =
        operation == Operation.COMPLETE
            ? base + "runs/" + Objects.requireNonNull(runId, "runId").value() + "/complete"
            : base + operation.wireName();
  }

  public static OperationPath register(WorkerId w, SessionId s) {
    return new OperationPath(Operation.REGISTER, w, s, null);
  }

  public static OperationPath heartbeat(WorkerId w, SessionId s) {
    return new OperationPath(Operation.HEARTBEAT, w, s, null);
  }

  public static OperationPath transition(WorkerId w, SessionId s) {
    return new OperationPath(Operation.TRANSITION, w, s, null);
  }

  public static OperationPath pull(WorkerId w, SessionId s) {
    return new OperationPath(Operation.PULL, w, s, null);
  }

  public static OperationPath complete(WorkerId w, SessionId s, RunId r) {
    return new OperationPath(Operation.COMPLETE, w, s, r);
  }

  /** The path for a non-complete operation. */
  public static OperationPath of(Operation op, WorkerId w, SessionId s) {
    if (op == Operation.COMPLETE) {
      throw new IllegalArgumentException("complete needs a runId");
    }
    return new OperationPath(op, w, s, null);
  }

  /**
   * Maps a raw request path (no query string) onto its operation. A path that is none of the five
   * templates is {@link ViolationReason#UNKNOWN_OPERATION} (404 {@code unknown_operation}); a
   * template with a bad identifier segment is {@link ViolationReason#BAD_IDENTIFIER}.
   */
  public static OperationPath parse(String rawPath) throws ContractViolation {
    if (rawPath == null || !rawPath.startsWith(PREFIX)) {
      throw unknown(rawPath);
    }
    String[] seg = rawPath.substring(PREFIX.length()).split("/", -1);
    // {w}/sessions/{s}/{op}   or   {w}/sessions/{s}/runs/{r}/complete
    Operation op;
    if (seg.length == 4 && seg[1].equals("sessions")) {
      op = Operation.fromWireName(seg[3]);
      if (op == null || op == Operation.COMPLETE) {
        throw unknown(rawPath);
      }
    } else if (seg.length == 6
        && seg[1].equals("sessions")
        && seg[3].equals("runs")
        && seg[5].equals("complete")) {
      op = Operation.COMPLETE;
    } else {
      throw unknown(rawPath);
    }
    // The shape is a template: now each identifier segment must be valid.
    WorkerId w = WorkerId.of(seg[0]);
    SessionId s = SessionId.of(seg[2]);
    RunId r = op == Operation.COMPLETE ? RunId.of(seg[4]) : null;
    return new OperationPath(op, w, s, r);
  }

  private static ContractViolation unknown(String rawPath) {
    return new ContractViolation(
        ViolationReason.UNKNOWN_OPERATION,
        "",
        "no operation at path " + (rawPath == null ? "null" : Check.quote(rawPath)));
  }

  public Operation operation() {
    return operation;
  }

  /** The path string, e.g. {@code /ql3w/v1/workers/w/sessions/s/heartbeat}. */
  public String path() {
    return path;
  }

  public WorkerId workerId() {
    return workerId;
  }

  public SessionId sessionId() {
    return sessionId;
  }

  /** The run id of a complete path; empty for the other operations. */
  public Optional<RunId> runId() {
    return Optional.ofNullable(runId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OperationPath p && p.path.equals(path);
  }

  @Override
  public int hashCode() {
    return path.hashCode();
  }

  @Override
  public String toString() {
    return path;
  }
}
