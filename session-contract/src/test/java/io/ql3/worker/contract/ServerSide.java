package io.ql3.worker.contract;

/** What a server does with a request body of an operation. */
final class ServerSide {
  private ServerSide() {}

  static Object parseRequest(Operation op, byte[] body, Integer pullPage) throws ContractViolation {
    switch (op) {
      case REGISTER:
        return RegisterRequest.parse(body);
      case HEARTBEAT:
        return HeartbeatRequest.parse(body);
      case TRANSITION:
        return TransitionRequest.parse(body);
      case PULL:
        return pullPage == null ? PullRequest.parse(body) : PullRequest.parse(body, pullPage);
      case COMPLETE:
        return CompleteRequest.parse(body);
      default:
        throw new AssertionError(op);
    }
  }
}
