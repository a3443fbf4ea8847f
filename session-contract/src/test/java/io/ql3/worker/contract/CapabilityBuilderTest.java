package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CapabilityBuilderTest {

  private static CapabilityBuilder edge() {
    return new CapabilityBuilder()
        .agent("1.4.2", "9c1e4b7a2f0d8e6c5b3a19f7e2d4c6b8a0f1e3d5")
        .architecture("arm64")
        .os("linux")
        .runtime("java", "21.0.5")
        .executor("process", "1")
        .label("team", "运维组")
        .label("site.display-name", "Zürich Nord – Halle 3")
        .label("region", "cn-east-2")
        .label("rack", "r12-u07")
        .label("ql3.io/site", "plant-07")
        .limits(4, 16384, 8)
        .profile(Profile.EDGE);
  }

  @Test
  void buildsTheVectorCapabilityByteForByte() throws Exception {
    Capability c = edge().build();
    assertThat(c.digest())
        .isEqualTo("sha256:349d4639c191e03d09040d51a99c59ff212284830a467148e8d6f57c07d8cd4a");
    RegisterRequest r = RegisterRequest.of(c, 4);
    assertThat(r.toCanonicalBytes()).isEqualTo(Vectors.bytes("requests/register-edge.json"));
    String text = new String(c.toCanonicalBytes(), StandardCharsets.UTF_8);
    assertThat(text).startsWith("{\"agent\":{\"name\":\"ql3-worker\",");
  }

  @Test
  void executorsAreSortedAndMustBeUnique() throws Exception {
    Capability c =
        edge().executor("sleep", "1").executor("fail", "1").executor("noop", "1").build();
    assertThat(c.executorNames()).containsExactly("fail", "noop", "process", "sleep");
    ContractViolation v =
        catchThrowableOfType(
            ContractViolation.class, () -> edge().executor("process", "2").build());
    assertThat(v.reason()).isEqualTo(ViolationReason.OUT_OF_RANGE);
    assertThatThrownBy(() -> edge().executor("Process", "1"))
        .isInstanceOf(InvalidWireValueException.class);
  }

  @Test
  void refusesASnapshotOverTheCanonicalLimit() throws Exception {
    CapabilityBuilder b = edge();
    for (int i = 0; i < 59; i++) {
      b.label(String.format("k%062d", i), "v".repeat(256));
    }
    ContractViolation v = catchThrowableOfType(ContractViolation.class, b::build);
    assertThat(v.reason()).isEqualTo(ViolationReason.CAPABILITY_TOO_LARGE);
  }

  @Test
  void refusesBadLabelsAndLimits() {
    CapabilityBuilder tooMany = edge();
    for (int i = 0; i < 60; i++) {
      tooMany.label("k" + i, "v");
    }
    assertThat(catchThrowableOfType(ContractViolation.class, tooMany::build).reason())
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
    assertThat(
            catchThrowableOfType(ContractViolation.class, () -> edge().label("Region", "x").build())
                .reason())
        .isEqualTo(ViolationReason.BAD_IDENTIFIER);
    assertThat(
            catchThrowableOfType(
                    ContractViolation.class, () -> edge().label("r", "é".repeat(257)).build())
                .reason())
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
    assertThat(
            catchThrowableOfType(
                ContractViolation.class,
                () -> edge().label("r", "\ud83d\ude80".repeat(256)).build()))
        .isNull(); // 256 characters (code points), 512 UTF-16 units
    assertThatThrownBy(() -> edge().limits(4, 65537, 8))
        .isInstanceOf(InvalidWireValueException.class);
    assertThatThrownBy(() -> edge().limits(0, 1, 8)).isInstanceOf(InvalidWireValueException.class);
    assertThat(
            catchThrowableOfType(
                    ContractViolation.class,
                    () -> edge().agent("1.4", "9c1e4b7a2f0d8e6c5b3a19f7e2d4c6b8a0f1e3d5").build())
                .reason())
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
    assertThat(
            catchThrowableOfType(
                    ContractViolation.class, () -> edge().agent("1.4.2", "9C1E").build())
                .reason())
        .isEqualTo(ViolationReason.OUT_OF_RANGE);
  }

  @Test
  void architectureNames() {
    assertThat(CapabilityBuilder.architectureOf("x86_64")).isEqualTo("amd64");
    assertThat(CapabilityBuilder.architectureOf("amd64")).isEqualTo("amd64");
    assertThat(CapabilityBuilder.architectureOf("aarch64")).isEqualTo("arm64");
    assertThat(CapabilityBuilder.architectureOf("riscv64")).isEqualTo("riscv64");
  }

  @Test
  void registerInvariants() throws Exception {
    Capability c = edge().build();
    assertThatThrownBy(
            () ->
                new RegisterRequest(
                    c, "sha256:" + "0".repeat(64), new Capacity(4, 4), Profile.EDGE))
        .isInstanceOf(InvalidWireValueException.class)
        .satisfies(
            e ->
                assertThat(((InvalidWireValueException) e).violation().reason())
                    .isEqualTo(ViolationReason.CAPABILITY_DIGEST_MISMATCH));
    assertThatThrownBy(() -> new RegisterRequest(c, c.digest(), new Capacity(4, 4), Profile.NODE))
        .isInstanceOf(InvalidWireValueException.class);
    assertThatThrownBy(() -> new RegisterRequest(c, c.digest(), new Capacity(4, 8), Profile.EDGE))
        .isInstanceOf(InvalidWireValueException.class);
    assertThatThrownBy(() -> RegisterRequest.of(c, 5))
        .satisfies(
            e ->
                assertThat(((InvalidWireValueException) e).violation().reason())
                    .isEqualTo(ViolationReason.SLOTS_OVER_MAX));
  }
}
