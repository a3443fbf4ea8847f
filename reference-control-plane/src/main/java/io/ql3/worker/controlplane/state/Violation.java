package io.ql3.worker.controlplane.state;

/** One observed client contract violation. {@code workerId}/{@code sessionId} may be null. */
public record Violation(
    long seq,
    long atMillis,
    ViolationKind kind,
    String workerId,
    String sessionId,
    String detail) {}
