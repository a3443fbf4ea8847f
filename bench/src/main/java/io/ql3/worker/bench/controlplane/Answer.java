package io.ql3.worker.bench.controlplane;

/** One answer: status and body bytes. */
record Answer(int status, byte[] body) {}
