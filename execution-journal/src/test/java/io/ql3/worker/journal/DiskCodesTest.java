package io.ql3.worker.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The on-disk byte of every persisted enum constant: changing one changes the journal format. */
class DiskCodesTest {
  private static <E extends Enum<E> & DiskCode> Map<String, Integer> codes(E[] values) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (E v : values) {
      m.put(v.name(), (int) v.code());
      assertThat(DiskCode.of(values, v.code())).isSameAs(v);
    }
    return m;
  }

  @Test
  void everyPersistedEnumKeepsItsOnDiskCode() {
    assertThat(codes(Outcome.values()))
        .containsExactly(
            Map.entry("SUCCEEDED", 0),
            Map.entry("FAILED", 1),
            Map.entry("CANCELLED", 2),
            Map.entry("UNCERTAIN", 3));
    assertThat(codes(FailureCategory.values()))
        .containsExactly(Map.entry("TRANSIENT", 0), Map.entry("PERMANENT", 1));
    assertThat(codes(SessionStatus.values()))
        .containsExactly(Map.entry("ACTIVE", 0), Map.entry("DRAINING", 1), Map.entry("OFFLINE", 2));
    assertThat(codes(Disposition.values()))
        .containsExactly(
            Map.entry("ACCEPTED", 0), Map.entry("DUPLICATE", 1), Map.entry("UNDELIVERABLE", 2));
    assertThat(codes(RunPhase.values()))
        .containsExactly(
            Map.entry("ACCEPTED", 0),
            Map.entry("STARTED", 1),
            Map.entry("RESULT_RECORDED", 2),
            Map.entry("SETTLED", 3));
    assertThat(codes(Settlement.values()))
        .containsExactly(
            Map.entry("ACKNOWLEDGED", 0),
            Map.entry("DUPLICATE", 1),
            Map.entry("SUPERSEDED", 2),
            Map.entry("OPERATOR_RESOLVED", 3),
            Map.entry("UNDELIVERABLE", 4));
  }

  @Test
  void anUnknownCodeIsRefused() {
    assertThatThrownBy(() -> DiskCode.of(Outcome.values(), (byte) 9))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUndeliverableCompletionSettlesTheRunAsUndeliverable(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    try (Journal j = Journal.open(Fixtures.config(dir))) {
      j.append(Fixtures.session());
      j.append(Fixtures.offer("r1"));
      j.append(Fixtures.started("r1"));
      j.append(Fixtures.succeeded("r1"));
      j.append(new JournalRecord.CompletionAcknowledged("r1", 1, Disposition.UNDELIVERABLE));
      assertThat(j.facts().pendingCompletions()).isEmpty();
      assertThat(j.facts().recentCompletion("r1", 1))
          .get()
          .satisfies(f -> assertThat(f.settlement()).isEqualTo(Settlement.UNDELIVERABLE));
    }
    assertThat(JournalInspector.verify(dir, Fixtures.WORKER).facts().recentCompletion("r1", 1))
        .get()
        .satisfies(f -> assertThat(f.settlement()).isEqualTo(Settlement.UNDELIVERABLE));
  }
}
