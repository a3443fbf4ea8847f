package io.ql3.worker.controlplane.state;

/**
 * An answer to one ingress request: HTTP status, body bytes (canonical JSON, or empty) and an
 * optional {@code retry-after} in seconds (-1: none).
 */
public record Reply(int status, byte[] body, int retryAfterSeconds) {
  public static Reply ok(byte[] body) {
    return new Reply(200, body, -1);
  }
}
