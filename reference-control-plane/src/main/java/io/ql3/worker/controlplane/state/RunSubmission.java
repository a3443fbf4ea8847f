package io.ql3.worker.controlplane.state;

import java.util.Map;

/**
 * An admin request to queue {@code count} runs. {@code spec} is JSON text (canonicalized on
 * submit). Optional: {@code workerId} (target one worker), {@code labels} (target workers whose
 * capability has all these labels), {@code runId} (only with count 1), {@code idempotencyKey}
 * (default: the runId), {@code delayMs} (not offered before that much time on the server clock).
 */
public record RunSubmission(
    int count,
    String executor,
    byte[] spec,
    long timeoutMs,
    String workerId,
    Map<String, String> labels,
    String runId,
    String idempotencyKey,
    long delayMs) {}
