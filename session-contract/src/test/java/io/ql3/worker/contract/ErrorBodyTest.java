package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;

class ErrorBodyTest {

  private static byte[] body(String code) {
    return ("{\"code\":\""
            + code
            + "\",\"message\":\"m\",\"schema\":\"qinglong/worker-ingress-error@v1\"}")
        .getBytes();
  }

  @Test
  void everyCodeBelongsToItsStatusOnly() throws Exception {
    int[] statuses = {400, 401, 403, 404, 405, 409, 413, 429, 500, 503};
    for (ErrorCode code : ErrorCode.values()) {
      for (Operation op : Operation.values()) {
        for (int status : statuses) {
          boolean expected =
              switch (code) {
                case CONTRACT_VIOLATION -> status == 400;
                case PAYLOAD_TOO_LARGE -> status == 413;
                case CREDENTIAL_REJECTED -> status == 401;
                case IDENTITY_MISMATCH -> status == 403;
                case UNKNOWN_OPERATION -> status == 404 || status == 405;
                case SESSION_FENCED,
                    SESSION_CONFLICT,
                    VERSION_CONFLICT,
                    LEASE_EXPIRED,
                    SESSION_NOT_ACTIVE ->
                    status == 409 && op != Operation.COMPLETE;
                case RUN_NOT_LEASED -> status == 409 && op == Operation.COMPLETE;
                case RATE_LIMITED -> status == 429;
                case UNAVAILABLE -> status == 503;
              };
          assertThat(code.belongsTo(status, op))
              .as(code + " " + status + " " + op)
              .isEqualTo(expected);
          byte[] b = body(code.wire());
          if (expected) {
            assertThat(ErrorBody.parse(status, op, b).code()).isEqualTo(code);
          } else {
            assertThat(
                    catchThrowableOfType(
                            ContractViolation.class, () -> ErrorBody.parse(status, op, b))
                        .reason())
                .isEqualTo(ViolationReason.CODE_STATUS_MISMATCH);
          }
        }
      }
    }
  }

  @Test
  void unlistedCodeAndLimits() throws Exception {
    assertThat(
            catchThrowableOfType(
                    ContractViolation.class,
                    () -> ErrorBody.parse(404, Operation.PULL, body("not_found")))
                .reason())
        .isEqualTo(ViolationReason.CODE_STATUS_MISMATCH);
    ErrorBody max = new ErrorBody(ErrorCode.UNAVAILABLE, "\u00e9".repeat(1024));
    assertThat(ErrorBody.parse(503, Operation.PULL, max.toCanonicalBytes())).isEqualTo(max);
    byte[] over =
        ("{\"code\":\"unavailable\",\"message\":\""
                + "x".repeat(1025)
                + "\",\"schema\":\"qinglong/worker-ingress-error@v1\"}")
            .getBytes();
    assertThat(
            catchThrowableOfType(
                    ContractViolation.class, () -> ErrorBody.parse(503, Operation.PULL, over))
                .reason())
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
  }

  @Test
  void classesAndStatuses() {
    assertThat(ErrorCode.RUN_NOT_LEASED.kind()).isEqualTo(AnswerKind.RUN_NOT_LEASED);
    assertThat(ErrorCode.SESSION_FENCED.kind()).isEqualTo(AnswerKind.FENCED);
    assertThat(ErrorCode.UNKNOWN_OPERATION.httpStatus()).isEqualTo(404);
    assertThat(ErrorCode.RATE_LIMITED.kind()).isEqualTo(AnswerKind.TRANSIENT);
    assertThat(ErrorCode.fromWire("credential_rejected")).isEqualTo(ErrorCode.CREDENTIAL_REJECTED);
  }
}
