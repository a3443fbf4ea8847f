package io.ql3.worker.controlplane.state;

/** The client contract violations the auditor recognises (docs/control-plane.md lists them). */
public enum ViolationKind {
  /** A second TLS connection of a worker while one is open (contract section 1). */
  CONCURRENT_CONNECTIONS("concurrent_connections"),
  /**
   * A heartbeat earlier than the published interval (minus the tolerance) after the previous one.
   */
  EARLY_HEARTBEAT("early_heartbeat"),
  /** Two session requests (register, heartbeat, transition) of one worker in flight at once. */
  OVERLAPPING_SESSION_REQUESTS("overlapping_session_requests"),
  /**
   * A pull on a session that is draining, offline, expired past tolerance, or already refused with
   * 409.
   */
  PULL_NOT_ACTIVE("pull_not_active"),
  /** A pull whose maxRuns exceeds the slots the session can take (max minus runs it holds). */
  PULL_ABOVE_SLOTS("pull_above_slots"),
  /**
   * A session request (heartbeat, transition, pull) after the server answered that session with a
   * 409.
   */
  REQUEST_AFTER_FENCE("request_after_fence"),
  /** A body that is valid JSON for the schema but not in canonical form. */
  NON_CANONICAL_BODY("non_canonical_body"),
  /** Any other body rule broken (400 contract_violation). */
  INVALID_BODY("invalid_body"),
  /** A body over the operation's cap (413). */
  PAYLOAD_TOO_LARGE("payload_too_large"),
  /** A path outside the five templates, or a method other than POST (404/405). */
  UNKNOWN_PATH("unknown_path"),
  /** Missing or wrong request headers (content-type, accept, user-agent, content-length). */
  BAD_HEADERS("bad_headers"),
  /** The path's workerId is not the certificate's identity (403). */
  IDENTITY_MISMATCH("identity_mismatch");

  private final String wire;

  ViolationKind(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }
}
