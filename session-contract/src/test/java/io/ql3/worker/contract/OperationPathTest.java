package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OperationPathTest {
  private static final WorkerId W = new WorkerId("edge-0001");
  private static final SessionId S = new SessionId("01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d");
  private static final String BASE =
      "/ql3w/v1/workers/edge-0001/sessions/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/";

  @Test
  void theFiveTemplates() throws Exception {
    assertThat(OperationPath.register(W, S).path()).isEqualTo(BASE + "register");
    assertThat(OperationPath.heartbeat(W, S).path()).isEqualTo(BASE + "heartbeat");
    assertThat(OperationPath.transition(W, S).path()).isEqualTo(BASE + "transition");
    assertThat(OperationPath.pull(W, S).path()).isEqualTo(BASE + "pull");
    OperationPath c = OperationPath.complete(W, S, new RunId("run-1"));
    assertThat(c.path()).isEqualTo(BASE + "runs/run-1/complete");
    assertThat(c.runId()).contains(new RunId("run-1"));
    assertThat(OperationPath.pull(W, S).runId()).isEmpty();
    for (OperationPath p :
        new OperationPath[] {
          OperationPath.register(W, S),
          OperationPath.heartbeat(W, S),
          OperationPath.transition(W, S),
          OperationPath.pull(W, S),
          c
        }) {
      OperationPath parsed = OperationPath.parse(p.path());
      assertThat(parsed).isEqualTo(p);
      assertThat(parsed.operation()).isEqualTo(p.operation());
      assertThat(parsed.workerId()).isEqualTo(W);
      assertThat(parsed.sessionId()).isEqualTo(S);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "/",
        "/ql3w/v1/workers/",
        "/ql3w/v2/workers/edge-0001/sessions/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/pull",
        BASE + "complete",
        BASE + "pull/",
        BASE + "Pull",
        BASE + "runs/run-1",
        BASE + "runs/run-1/complete/",
        BASE + "runs/run-1/cancel",
        BASE + "runs//complete/x",
        BASE + "",
        BASE + "pull?x=1",
        BASE + "../pull",
        "/ql3w/v1/workers/edge-0001/session/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/pull",
        "ql3w/v1/workers/edge-0001/sessions/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/pull"
      })
  void unknownOperations(String path) {
    ContractViolation v =
        catchThrowableOfType(ContractViolation.class, () -> OperationPath.parse(path));
    assertThat(v.reason()).isEqualTo(ViolationReason.UNKNOWN_OPERATION);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/ql3w/v1/workers/Edge_0001/sessions/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/heartbeat",
        "/ql3w/v1/workers/edge-0001/sessions/3f1c2b7a-9d4e-4b2a-8c3d-5e6f7a8b9c0d/heartbeat",
        "/ql3w/v1/workers//sessions/01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d/pull",
        BASE + "runs/-run-1/complete",
        BASE + "runs//complete",
        BASE + "runs/run%201/complete"
      })
  void badIdentifierSegments(String path) {
    ContractViolation v =
        catchThrowableOfType(ContractViolation.class, () -> OperationPath.parse(path));
    assertThat(v.reason()).isEqualTo(ViolationReason.BAD_IDENTIFIER);
  }

  @Test
  void nullPathIsUnknown() {
    assertThat(
            catchThrowableOfType(ContractViolation.class, () -> OperationPath.parse(null)).reason())
        .isEqualTo(ViolationReason.UNKNOWN_OPERATION);
  }
}
