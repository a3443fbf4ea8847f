package io.ql3.worker.controlplane.state;

/** One offer as the server sends it; {@code spec} is the canonical JSON of the run's spec. */
public record OfferData(
    long attempt,
    String executor,
    String idempotencyKey,
    String runId,
    byte[] spec,
    String specDigest,
    long timeoutMs) {}
