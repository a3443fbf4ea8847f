package io.ql3.worker.controlplane.state;

/**
 * One injected fault for the next {@code remaining} answers of an operation ({@code operation}
 * null: any).
 *
 * <ul>
 *   <li>{@link Action#ERROR}: answer {@code status} (with the contract error body for {@code code}
 *       when the status is in the contract's table, an empty body otherwise) without applying the
 *       request.
 *   <li>{@link Action#DROP_AFTER_APPLY}: apply the request, then close the connection without
 *       answering (the client sees outcome-unknown and must resend the identical bytes).
 *   <li>{@link Action#DELAY}: apply the request, answer after {@code delayMs}.
 *   <li>{@link Action#PROXY_PAGE}: answer {@code status} with a 5 KB text/html page, as an
 *       intermediary (a load balancer or proxy) does, without applying the request: no contract
 *       error body, and over the 4096-byte error cap.
 * </ul>
 */
public record Fault(
    long id,
    String operation,
    Action action,
    int status,
    String code,
    int retryAfterSeconds,
    long delayMs,
    int remaining) {

  public enum Action {
    ERROR("error"),
    DROP_AFTER_APPLY("drop-after-apply"),
    DELAY("delay"),
    PROXY_PAGE("proxy-page");

    private final String wire;

    Action(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    public static Action ofWire(String value) {
      for (Action a : values()) {
        if (a.wire.equals(value)) {
          return a;
        }
      }
      throw new IllegalArgumentException(
          "unknown fault action '" + value + "' (error, drop-after-apply, delay, proxy-page)");
    }
  }

  Fault consumeOne() {
    return new Fault(
        id, operation, action, status, code, retryAfterSeconds, delayMs, remaining - 1);
  }
}
