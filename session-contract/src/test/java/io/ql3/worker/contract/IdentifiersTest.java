package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentifiersTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "0",
        "edge-0001",
        "a-b",
        "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij123"
      })
  void validWorkerIds(String s) throws Exception {
    assertThat(WorkerId.of(s).value()).isEqualTo(s);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "-a",
        "a-",
        "Edge",
        "edge_1",
        "a.b",
        "edge-0001\n",
        " a",
        "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234"
      })
  void invalidWorkerIds(String s) {
    ContractViolation v = catchThrowableOfType(ContractViolation.class, () -> WorkerId.of(s));
    assertThat(v.reason()).isEqualTo(ViolationReason.BAD_IDENTIFIER);
    assertThatThrownBy(() -> new WorkerId(s)).isInstanceOf(InvalidWireValueException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d",
        "00000000-0000-7000-8000-000000000000",
        "ffffffff-ffff-7fff-bfff-ffffffffffff"
      })
  void validUuid7(String s) throws Exception {
    assertThat(SessionId.of(s).value()).isEqualTo(s);
    assertThat(PullId.of(s).value()).isEqualTo(s);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "01938A6E-4F1C-7B2A-9D3E-5C7F1A2B3C4D",
        "3f1c2b7a-9d4e-4b2a-8c3d-5e6f7a8b9c0d",
        "01938a6e-4f1c-7b2a-cd3e-5c7f1a2b3c4d",
        "01938a6e4f1c7b2a9d3e5c7f1a2b3c4d",
        "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4",
        "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d0",
        "{01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4}",
        ""
      })
  void invalidUuid7(String s) {
    assertThat(catchThrowableOfType(ContractViolation.class, () -> SessionId.of(s)).reason())
        .isEqualTo(ViolationReason.BAD_IDENTIFIER);
    assertThat(PullId.isValid(s)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "run-20241203-000117", "R.1_x-y", "9"})
  void validRunIds(String s) throws Exception {
    assertThat(RunId.of(s).value()).isEqualTo(s);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "-run-1", ".x", "_x", "run 1", "run/1", "run\n", "r\u00e9"})
  void invalidRunIds(String s) {
    assertThat(RunId.isValid(s)).isFalse();
  }

  @Test
  void runIdLengthLimit() {
    assertThat(RunId.isValid("a".repeat(128))).isTrue();
    assertThat(RunId.isValid("a".repeat(129))).isFalse();
    assertThat(catchThrowableOfType(ContractViolation.class, () -> RunId.of(null)).reason())
        .isEqualTo(ViolationReason.BAD_IDENTIFIER);
  }

  @Test
  void uuid7HasTimestampVersionAndVariant() {
    long ms = 0x01938a6e4f1cL;
    Uuid7Generator g = new Uuid7Generator(() -> ms, new SplittableRandom(42));
    String id = g.next();
    assertThat(SessionId.isValid(id)).isTrue();
    assertThat(id).startsWith("01938a6e-4f1c-7");
    java.util.UUID u = java.util.UUID.fromString(id);
    assertThat(u.version()).isEqualTo(7);
    assertThat(u.variant()).isEqualTo(2);
  }

  @Test
  void monotonicWithinOneMillisecondAndWhenTheClockStepsBack() {
    AtomicLong now = new AtomicLong(1_700_000_000_000L);
    Uuid7Generator g = new Uuid7Generator(now::get, new SplittableRandom(7));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      ids.add(g.next());
      if (i == 5000) {
        now.addAndGet(-1000); // clock stepped back one second
      }
      if (i == 7000) {
        now.addAndGet(5000);
      }
    }
    for (int i = 1; i < ids.size(); i++) {
      assertThat(ids.get(i)).isGreaterThan(ids.get(i - 1));
      assertThat(SessionId.isValid(ids.get(i))).isTrue();
    }
  }

  @Test
  void counterOverflowCarriesIntoTheTimestamp() {
    // A random source returning all ones puts the counter at its maximum at once.
    java.util.random.RandomGenerator ones =
        new java.util.random.RandomGenerator() {
          @Override
          public long nextLong() {
            return -1L;
          }
        };
    Uuid7Generator g = new Uuid7Generator(() -> 5L, ones);
    String a = g.next();
    String b = g.next();
    assertThat(a).isEqualTo("00000000-0005-7fff-bfff-ffffffffffff");
    assertThat(b).isEqualTo("00000000-0006-7000-8000-000000000000");
    assertThat(b).isGreaterThan(a);
  }

  @Test
  void clockConstructor() {
    java.time.Clock fixed =
        java.time.Clock.fixed(java.time.Instant.ofEpochMilli(1234), java.time.ZoneOffset.UTC);
    Uuid7Generator g = new Uuid7Generator(fixed, new SplittableRandom(1));
    assertThat(g.nextSessionId().value()).startsWith("00000000-04d2-7");
    assertThat(g.nextPullId().value()).startsWith("00000000-04d2-7");
  }
}
