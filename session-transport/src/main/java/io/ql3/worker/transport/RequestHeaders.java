package io.ql3.worker.transport;

/** The fixed header values of every request on a connection. */
record RequestHeaders(String authority, String userAgent) {}
