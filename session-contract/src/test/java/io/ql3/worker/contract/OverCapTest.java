package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Caps come first: a body of cap+1 bytes is OVER_CAP whatever it holds, and a valid body of exactly
 * cap bytes passes.
 */
class OverCapTest {

  interface Parser {
    Object parse(byte[] b) throws ContractViolation;
  }

  /**
   * cap+1 bytes: a BOM, invalid UTF-8 and broken JSON up front: had the parser looked at any of it,
   * it would say BOM.
   */
  private static byte[] poisoned(int len) {
    byte[] b = new byte[len];
    Arrays.fill(b, (byte) 0xFF);
    b[0] = (byte) 0xEF;
    b[1] = (byte) 0xBB;
    b[2] = (byte) 0xBF;
    return b;
  }

  /** A valid body padded with whitespace after its value up to {@code len} bytes. */
  private static byte[] padded(byte[] body, int len) {
    byte[] b = Arrays.copyOf(body, len);
    Arrays.fill(b, body.length, len, (byte) ' ');
    return b;
  }

  private static void assertCap(Parser p, int cap, byte[] validBody) throws Exception {
    ContractViolation v =
        catchThrowableOfType(ContractViolation.class, () -> p.parse(poisoned(cap + 1)));
    assertThat(v).isNotNull();
    assertThat(v.reason()).isEqualTo(ViolationReason.OVER_CAP);
    assertThat(v.pointer()).isEmpty();
    // Valid JSON followed by whitespace up to cap+1 is still over the cap.
    ContractViolation w =
        catchThrowableOfType(ContractViolation.class, () -> p.parse(padded(validBody, cap + 1)));
    assertThat(w.reason()).isEqualTo(ViolationReason.OVER_CAP);
    // Poisoned bytes within the cap are reported as what they are.
    ContractViolation x =
        catchThrowableOfType(ContractViolation.class, () -> p.parse(poisoned(cap)));
    assertThat(x.reason()).isEqualTo(ViolationReason.BOM);
  }

  private static byte[] vector(String path) {
    return Vectors.bytes(path);
  }

  @Test
  void responsesAcceptExactlyCapAndRefuseCapPlusOne() throws Exception {
    byte[] reg = vector("responses/valid/register-edge-fresh.json");
    assertCap(RegisterResponse::parse, 4096, reg);
    assertThat(RegisterResponse.parse(padded(reg, 4096))).isNotNull();
    byte[] hb = vector("responses/valid/heartbeat-active.json");
    assertCap(HeartbeatResponse::parse, 4096, hb);
    assertThat(HeartbeatResponse.parse(padded(hb, 4096))).isNotNull();
    byte[] tr = vector("responses/valid/transition-draining.json");
    assertCap(TransitionResponse::parse, 4096, tr);
    byte[] pull = vector("responses/valid/pull-two-offers.json");
    assertCap(PullResponse::parse, 1048576, pull);
    assertThat(PullResponse.parse(padded(pull, 1048576)).offers()).hasSize(2);
    byte[] co = vector("responses/valid/complete-succeeded.json");
    assertCap(CompleteResponse::parse, 4096, co);
    byte[] err = vector("responses/valid/error-409-session-fenced.json");
    assertCap(b -> ErrorBody.parse(409, Operation.HEARTBEAT, b), 4096, err);
    assertCap(b -> ErrorBody.parse(404, Operation.PULL, b), 4096, err);
  }

  @Test
  void requestsRefuseCapPlusOne() throws Exception {
    assertCap(RegisterRequest::parse, 20480, vector("requests/register-edge.json"));
    assertCap(HeartbeatRequest::parse, 4096, vector("requests/heartbeat-active.json"));
    assertCap(TransitionRequest::parse, 4096, vector("requests/transition-active-draining.json"));
    assertCap(PullRequest::parse, 4096, vector("requests/pull.json"));
    assertCap(CompleteRequest::parse, 65536, vector("requests/complete-succeeded.json"));
  }

  @Test
  void capsMatchTheContractTable() {
    assertThat(Operation.REGISTER.requestCap()).isEqualTo(20480);
    assertThat(Operation.COMPLETE.requestCap()).isEqualTo(65536);
    assertThat(Operation.PULL.responseCap()).isEqualTo(1 << 20);
    for (Operation op : Operation.values()) {
      assertThat(op.schema()).startsWith("qinglong/worker-").endsWith("@v1");
      if (op != Operation.REGISTER && op != Operation.COMPLETE) {
        assertThat(op.requestCap()).isEqualTo(4096);
      }
      if (op != Operation.PULL) {
        assertThat(op.responseCap()).isEqualTo(4096);
      }
    }
    assertThat(new String(vector("requests/pull.json"), StandardCharsets.UTF_8))
        .contains(Operation.PULL.schema());
  }
}
