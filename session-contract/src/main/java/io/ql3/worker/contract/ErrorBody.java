package io.ql3.worker.contract;

/**
 * Error body {@code {"code","message","schema":"qinglong/worker-ingress-error@v1"}}, at most 4096
 * bytes, message at most 1024 characters. The code must belong to the HTTP status (and operation)
 * it came with: {@link ErrorCode#belongsTo}.
 */
public record ErrorBody(ErrorCode code, String message) {
  public static final int MAX_MESSAGE_CHARS = 1024;
  static final String[] NAMES = {"code", "message", "schema"};

  public ErrorBody {
    Check.present(code, "/code");
    Check.chars(message, 0, MAX_MESSAGE_CHARS, "/message");
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(96 + message.length());
    w.ascii("{\"code\":")
        .string(code.wire())
        .ascii(",\"message\":")
        .string(message)
        .ascii(",\"schema\":\"qinglong/worker-ingress-error@v1\"}");
    return w.toByteArray();
  }

  /** Parses an error body without a status/operation context (any listed code is accepted). */
  public static ErrorBody parse(byte[] body) throws ContractViolation {
    return parse(body, -1, null);
  }

  /**
   * Parses the body of an error answer with {@code httpStatus} to {@code op}, checking the pairing.
   */
  public static ErrorBody parse(int httpStatus, Operation op, byte[] body)
      throws ContractViolation {
    return parse(body, httpStatus, op);
  }

  private static ErrorBody parse(byte[] body, int httpStatus, Operation op)
      throws ContractViolation {
    Obj o = Obj.body(body, Operation.ERROR_CAP, NAMES);
    o.schema(Operation.ERROR_SCHEMA);
    String c = o.string("code");
    String message = o.string("message");
    ErrorCode code = ErrorCode.fromWire(c);
    if (code == null) {
      throw new ContractViolation(
          ViolationReason.CODE_STATUS_MISMATCH,
          "/code",
          "code " + Check.quote(c) + " is not a contract error code");
    }
    if (op != null && !code.belongsTo(httpStatus, op)) {
      throw new ContractViolation(
          ViolationReason.CODE_STATUS_MISMATCH,
          "/code",
          "code " + c + " does not belong to HTTP " + httpStatus + " on " + op.wireName());
    }
    try {
      return new ErrorBody(code, message);
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
